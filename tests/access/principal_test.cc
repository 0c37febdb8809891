#include "access/principal.h"

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/time_format.h"

namespace trainyard::access {
namespace {

using Kind = Credential::Kind;

TEST(GrantsForTest, OneGrantPerProjectOrOneSpanningGrant) {
  EXPECT_EQ(*GrantsFor(Role::kEditor, {"a", "b", "a"}),
            (std::vector<Grant>{{Role::kEditor, "a"}, {Role::kEditor, "b"}}));
  EXPECT_EQ(*GrantsFor(Role::kAdmin, {}), (std::vector<Grant>{{Role::kAdmin, ""}}));
}

TEST(GrantsForTest, RefusesAMissingOrPointlessProject) {
  const Result<std::vector<Grant>> none = GrantsFor(Role::kViewer, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().violations()[0].field, "project");
  EXPECT_NE(none.status().violations()[0].description.find("at least one --project"),
            std::string::npos);
  const Result<std::vector<Grant>> admin = GrantsFor(Role::kAdmin, {"p"});
  ASSERT_FALSE(admin.ok());
  EXPECT_NE(admin.status().violations()[0].description.find("every project"), std::string::npos);
}

TEST(DescribeGrantsTest, SaysRolesAndProjects) {
  EXPECT_EQ(DescribeGrants({{Role::kEditor, "a"}, {Role::kEditor, "b"}}), "editor on a, b");
  EXPECT_EQ(DescribeGrants({{Role::kViewer, "a"}, {Role::kEditor, "b"}}),
            "viewer on a; editor on b");
  EXPECT_EQ(DescribeGrants({{Role::kAdmin, ""}}), "admin (every project)");
  EXPECT_EQ(DescribeGrants({}), "no roles");
}

TEST(CheckTokenNameTest, AcceptsNamesAndEmailAddresses) {
  for (const char* name : {"alice", "alice@example.com", "ci-bot_2", "A.b", "7"}) {
    EXPECT_EQ(CheckTokenName(name, "NAME"), std::nullopt) << name;
  }
  for (const std::string& name :
       {std::string(), std::string("-x"), std::string("a b"), std::string("a/b"),
        std::string("x\n"), std::string(65, 'a'), std::string("é")}) {
    const auto bad = CheckTokenName(name, "NAME");
    ASSERT_TRUE(bad.has_value()) << name;
    EXPECT_EQ(bad->field, "NAME");
  }
}

TEST(IsTokenSyntaxTest, IsThePrefixAnd43Base64UrlCharacters) {
  const std::string body(43, 'A');
  EXPECT_TRUE(IsTokenSyntax("ty_" + body));
  EXPECT_TRUE(IsTokenSyntax("ty_" + std::string(42, 'z') + "-"));
  EXPECT_FALSE(IsTokenSyntax("ty_" + body.substr(1)));
  EXPECT_FALSE(IsTokenSyntax("ty_" + body + "A"));
  EXPECT_FALSE(IsTokenSyntax("tx_" + body));
  EXPECT_FALSE(IsTokenSyntax("ty_" + std::string(42, 'A') + "="));
  EXPECT_FALSE(IsTokenSyntax(""));
}

struct AuthorizationCase {
  std::string header;
  Kind kind;
  std::string token;
};

TEST(ParseAuthorizationTest, ReadsBearerTokens) {
  const std::vector<AuthorizationCase> cases = {
      {"", Kind::kNone, ""},
      {"   ", Kind::kNone, ""},
      {"Bearer abc", Kind::kBearer, "abc"},
      {"bearer abc", Kind::kBearer, "abc"},
      {"BEARER   abc  ", Kind::kBearer, "abc"},
      {"Bearer\tab.c~d+e/f==", Kind::kBearer, "ab.c~d+e/f=="},
      {"Bearer", Kind::kMalformed, ""},
      {"Bearer ", Kind::kMalformed, ""},
      {"Bearer a b", Kind::kMalformed, ""},
      {"Bearer a=b", Kind::kMalformed, ""},
      {"Bearer ===", Kind::kMalformed, ""},
      {"Basic dXNlcjpwYXNz", Kind::kMalformed, ""},
      {"Bearerabc", Kind::kMalformed, ""},
      {"Bearer \"abc\"", Kind::kMalformed, ""},
      {std::string("Bearer a\0b", 10), Kind::kMalformed, ""},
  };
  for (const AuthorizationCase& c : cases) {
    const Credential credential = ParseAuthorization(c.header);
    EXPECT_EQ(credential.kind, c.kind) << "[" << c.header << "]";
    EXPECT_EQ(credential.token, c.token) << "[" << c.header << "]";
  }
}

TEST(ParseExpiryTest, ReadsDurationsAndTimes) {
  const WallTime now = *ParseTimestamp("2026-01-01T00:00:00Z");
  EXPECT_EQ(*ParseExpiry("90d", now), now + std::chrono::hours(24 * 90));
  EXPECT_EQ(*ParseExpiry("12h", now), now + std::chrono::hours(12));
  EXPECT_EQ(*ParseExpiry("30m", now), now + std::chrono::minutes(30));
  EXPECT_EQ(*ParseExpiry("45s", now), now + std::chrono::seconds(45));
  EXPECT_EQ(*ParseExpiry("2026-02-01T00:00:00Z", now), *ParseTimestamp("2026-02-01T00:00:00Z"));
}

TEST(ParseExpiryTest, RefusesWhatIsNotAFutureTime) {
  const WallTime now = *ParseTimestamp("2026-01-01T00:00:00Z");
  for (const char* text : {"", "d", "0d", "-1d", "1w", "1.5h", "h1", "1 d", "99999999999d",
                           "2025-12-31T00:00:00Z", "2026-01-01T00:00:00Z", "tomorrow"}) {
    const Result<WallTime> parsed = ParseExpiry(text, now);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().violations()[0].field, "expires") << text;
  }
}

}  // namespace
}  // namespace trainyard::access
