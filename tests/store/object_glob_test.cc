// GCS's matchGlob syntax on object names (docs/reference/ai-platform-training.md §11.1).
#include "store/object_glob.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace trainyard::store::internal {
namespace {

struct MatchCase {
  std::string_view pattern;
  std::string_view name;
  bool matches;
};

TEST(ObjectGlobTest, MatchesAsGcsDocumentsIt) {
  constexpr MatchCase kCases[] = {
      {"a.txt", "a.txt", true},
      {"a.txt", "a.txtx", false},
      {"*.txt", "a.txt", true},
      {"*.txt", ".txt", true},
      {"*.txt", "dir/a.txt", false},  // "*" stops at "/"
      {"**.txt", "dir/sub/a.txt", true},
      {"**.txt", "a.txt", true},
      {"dir/**", "dir/a/b", true},
      {"dir/**", "other/a", false},
      {"a/**/b", "a/b", true},  // "**/" also matches no directory
      {"a/**/b", "a/x/y/b", true},
      {"a/**/b", "a/xb", false},
      {"??.bin", "ab.bin", true},
      {"??.bin", "a.bin", false},
      {"a?c", "a/c", false},  // "?" is not "/"
      {"[abc].txt", "b.txt", true},
      {"[abc].txt", "d.txt", false},
      {"[a-c]1", "c1", true},
      {"[!a-c]1", "c1", false},
      {"[!a-c]1", "z1", true},
      {"data.{csv,json}", "data.json", true},
      {"data.{csv,json}", "data.txt", false},
      {"{a,b}/{c,d}", "b/c", true},
      {"{a,}x", "x", true},
      {"\\*", "*", true},
      {"\\*", "a", false},
      {"logs/*/run-?.log", "logs/job1/run-3.log", true},
      {"logs/*/run-?.log", "logs/job1/x/run-3.log", false},
  };
  for (const MatchCase& c : kCases) {
    Result<ObjectGlob> glob = ObjectGlob::Compile(c.pattern);
    ASSERT_TRUE(glob.ok()) << c.pattern << ": " << glob.status().ToString();
    EXPECT_EQ(glob->Matches(c.name), c.matches) << c.pattern << " on " << c.name;
  }
}

TEST(ObjectGlobTest, RefusesAMalformedPatternNamingMatchGlob) {
  for (std::string_view pattern : {"", "[ab", "{a,b", "a}", "{a,{b}}", "ab\\", "[!"}) {
    Result<ObjectGlob> glob = ObjectGlob::Compile(pattern);
    ASSERT_FALSE(glob.ok()) << pattern;
    EXPECT_EQ(glob.status().code(), Code::kInvalidArgument) << pattern;
    ASSERT_EQ(glob.status().violations().size(), 1U) << pattern;
    EXPECT_EQ(glob.status().violations()[0].field, "matchGlob");
  }
}

// Each alternative costs a pass over the name: braces may not multiply without bound.
TEST(ObjectGlobTest, RefusesBracesThatMultiplyPastTheBound) {
  EXPECT_TRUE(ObjectGlob::Compile("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}").ok());  // 256
  EXPECT_FALSE(ObjectGlob::Compile("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}").ok());
}

// No backtracking: a pattern of many stars on a long name that almost matches ends at once.
TEST(ObjectGlobTest, TakesLinearTimePerTokenOnAdversarialPatterns) {
  Result<ObjectGlob> glob = ObjectGlob::Compile("**a**a**a**a**a**a**a**a**a**a**b");
  ASSERT_TRUE(glob.ok());
  EXPECT_FALSE(glob->Matches(std::string(1000, 'a')));
}

}  // namespace
}  // namespace trainyard::store::internal
