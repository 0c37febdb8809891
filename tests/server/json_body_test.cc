// The checks of server/json_body.h: a field-less request's body (a cancel's) is empty or {}, and
// each member it has is refused on its own, in Google's words.
#include "server/json_body.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::server {
namespace {

TEST(JsonBodyTest, AFieldLessRequestRefusesEachMemberInGooglesWords) {
  struct BodyCase {
    std::string body;
    std::vector<FieldViolation> violations;  // none: accepted
  };
  const std::vector<BodyCase> cases = {
      {"", {}},
      {" {} ", {}},
      {R"({"force":true,"a\"":null})",
       {{"a\"", R"(Invalid JSON payload received. Unknown name "a\"": Cannot find field.)"},
        {"force", R"(Invalid JSON payload received. Unknown name "force": Cannot find field.)"}}},
  };
  for (const BodyCase& c : cases) {
    const Status status = CheckEmptyMessage(HttpRequest{.body = c.body}, "CancelJobRequest");
    EXPECT_EQ(status.ok(), c.violations.empty()) << c.body;
    EXPECT_EQ(std::vector<FieldViolation>(status.violations().begin(), status.violations().end()),
              c.violations)
        << c.body;
  }
}

TEST(JsonBodyTest, ABodyThatIsNoObjectIsRefusedWhole) {
  for (const std::string body : {"[1]", "{", "3"}) {
    const Status status = CheckEmptyMessage(HttpRequest{.body = body}, "CancelJobRequest");
    EXPECT_EQ(status.code(), Code::kInvalidArgument) << body;
    EXPECT_TRUE(status.violations().empty()) << body;
  }
  EXPECT_EQ(
      CheckEmptyMessage(HttpRequest{.content_type = "text/plain", .body = "{}"}, "CancelJobRequest")
          .code(),
      Code::kInvalidArgument);
}

}  // namespace
}  // namespace trainyard::server
