// FNV-1a 64: the published test vectors, and a salt or a chain continuing from a hash.
#include "base/fnv1a.h"

#include <cstdint>
#include <string_view>

#include <gtest/gtest.h>

namespace trainyard {
namespace {

TEST(Fnv1aTest, MatchesThePublishedVectors) {
  const struct {
    std::string_view bytes;
    std::uint64_t hash;
  } cases[] = {
      {"", 0xcbf29ce484222325ULL},
      {"a", 0xaf63dc4c8601ec8cULL},
      {"foobar", 0x85944171f73967e8ULL},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Fnv1a(c.bytes), c.hash) << c.bytes;
  }
}

TEST(Fnv1aTest, ContinuesFromTheHashItIsGiven) {
  EXPECT_EQ(Fnv1a("bar", Fnv1a("foo")), Fnv1a("foobar"));
  EXPECT_NE(Fnv1a("foobar", 42), Fnv1a("foobar"));
  static_assert(Fnv1a("") == kFnv1aOffsetBasis);
}

}  // namespace
}  // namespace trainyard
