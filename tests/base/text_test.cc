#include "base/text.h"

#include <cstddef>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace trainyard {
namespace {

struct ExcerptCase {
  std::string name;
  std::string_view text;
  std::size_t max_bytes;
  std::string expected;
};

class ExcerptTest : public ::testing::TestWithParam<ExcerptCase> {};

TEST_P(ExcerptTest, CutsAtACharacterAndSaysSo) {
  EXPECT_EQ(Excerpt(GetParam().text, GetParam().max_bytes), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Texts, ExcerptTest,
    ::testing::Values(ExcerptCase{"Shorter", "abc", 5, "abc"},
                      ExcerptCase{"Exactly", "abcde", 5, "abcde"},
                      ExcerptCase{"Longer", "abcdef", 5, "abcde…"}, ExcerptCase{"Empty", "", 0, ""},
                      ExcerptCase{"NothingKept", "abc", 0, "…"},
                      // "é" is two bytes: a cut after its first one keeps neither
                      ExcerptCase{"InsideACharacter", "ab\xC3\xA9z", 3, "ab…"},
                      ExcerptCase{"AfterACharacter", "ab\xC3\xA9z", 4, "ab\xC3\xA9…"},
                      // "€" is three bytes
                      ExcerptCase{"InsideAThreeByteCharacter", "\xE2\x82\xAC\xE2\x82\xAC", 5,
                                  "\xE2\x82\xAC…"}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard
