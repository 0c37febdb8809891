#include "base/embedded.h"

#include <array>

#include <gtest/gtest.h>

namespace trainyard::base {
namespace {

constexpr std::array<EmbeddedFile, 3> kFiles = {{
    {"a.json", "{}"},
    {"b.txt", ""},  // empty, yet there
    {"a.json", "second"},
}};

TEST(EmbeddedFilesTest, FindsByExactNameTheFirstListed) {
  const EmbeddedFiles files(kFiles);
  struct Case {
    std::string_view name;
    std::optional<std::string_view> bytes;
  };
  for (const Case& c : {Case{"a.json", "{}"}, Case{"b.txt", ""}, Case{"a.jso", std::nullopt},
                        Case{"A.json", std::nullopt}, Case{"", std::nullopt}}) {
    EXPECT_EQ(files.Find(c.name), c.bytes) << c.name;
  }
  EXPECT_EQ(files.All().size(), 3U);
  EXPECT_EQ(files.Get("b.txt"), "");
}

TEST(EmbeddedFilesDeathTest, GetOfAFileTheBuildLacksAbortsNamingIt) {
  const EmbeddedFiles files(kFiles);
  EXPECT_DEATH((void)files.Get("roles.json"), "no embedded file roles.json");
}

}  // namespace
}  // namespace trainyard::base
