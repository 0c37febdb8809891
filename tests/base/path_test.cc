#include "base/path.h"

#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard {
namespace {

TEST(IsBelowDirectory, StrictlyBelowOnly) {
  struct Case {
    std::string_view path;
    std::string_view dir;
    bool below;
  };
  for (const Case& c : std::vector<Case>{{"/srv/pkgs/a.tar.gz", "/srv/pkgs", true},
                                         {"/srv/pkgs/a.tar.gz", "/srv/pkgs/", true},
                                         {"/srv/pkgs/sub/a.whl", "/srv/pkgs", true},
                                         {"/srv/pkgs2/a.tar.gz", "/srv/pkgs", false},
                                         {"/srv/pkgs", "/srv/pkgs", false},
                                         {"/srv/pkgs/", "/srv/pkgs", false},
                                         {"/srv/a.tar.gz", "/srv/pkgs", false},
                                         {"/etc/passwd", "/", true},
                                         {"/", "/", false}}) {
    EXPECT_EQ(IsBelowDirectory(c.path, c.dir), c.below) << c.path << " in " << c.dir;
  }
}

TEST(IsNormalisedAbsolutePath, NoDotsNoEmptySegments) {
  for (std::string_view good : {"/", "/a", "/srv/pkgs/a.tar.gz", "/a/.hidden", "/a/..b"}) {
    EXPECT_TRUE(IsNormalisedAbsolutePath(good)) << good;
  }
  for (std::string_view bad :
       {"", "a/b", "/a/", "//a", "/a//b", "/a/./b", "/a/../b", "/..", "/."}) {
    EXPECT_FALSE(IsNormalisedAbsolutePath(bad)) << bad;
  }
}

}  // namespace
}  // namespace trainyard
