// Error responses back to `Status`: google.rpc bodies as the server writes them, and bodies
// that are not.
#include "cli/client/rpc_status.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::cli {
namespace {

struct ErrorCase {
  std::string name;
  int http_status;
  std::string body;
  Code code;
  std::string message;
  std::vector<FieldViolation> violations;
};

class StatusFromHttpErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(StatusFromHttpErrorTest, MapsTheBody) {
  const ErrorCase& c = GetParam();
  const Status status = StatusFromHttpError(c.http_status, c.body);
  EXPECT_EQ(status.code(), c.code);
  EXPECT_EQ(status.message(), c.message);
  EXPECT_EQ(std::vector<FieldViolation>(status.violations().begin(), status.violations().end()),
            c.violations);
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, StatusFromHttpErrorTest,
    ::testing::Values(
        ErrorCase{"NotFound", 404,
                  R"j({"error":{"code":404,"message":"Field: name Error: The specified job was )j"
                  R"j(not found.","status":"NOT_FOUND"}})j",
                  Code::kNotFound, "Field: name Error: The specified job was not found."},
        ErrorCase{"InvalidArgumentWithViolations",
                  400,
                  R"j({"error":{"code":400,"message":"Field: jobId Error: bad (and 1 more)",)j"
                  R"j("status":"INVALID_ARGUMENT","details":[{"@type":)j"
                  R"j("type.googleapis.com/google.rpc.BadRequest","fieldViolations":[)j"
                  R"j({"field":"jobId","description":"bad"},)j"
                  R"j({"field":"trainingInput.region","description":"unknown"}]}]}})j",
                  Code::kInvalidArgument,
                  "Field: jobId Error: bad (and 1 more)",
                  {{"jobId", "bad"}, {"trainingInput.region", "unknown"}}},
        ErrorCase{
            "InvalidArgumentWithoutViolations", 400,
            R"j({"error":{"code":400,"message":"bad page token","status":"INVALID_ARGUMENT"}})j",
            Code::kInvalidArgument, "bad page token"},
        ErrorCase{"FailedPreconditionIsA400Too", 400,
                  R"j({"error":{"code":400,"message":"Cannot cancel an already completed job.",)j"
                  R"j("status":"FAILED_PRECONDITION"}})j",
                  Code::kFailedPrecondition, "Cannot cancel an already completed job."},
        ErrorCase{"AlreadyExists", 409,
                  R"j({"error":{"code":409,"message":"taken","status":"ALREADY_EXISTS"}})j",
                  Code::kAlreadyExists, "taken"},
        ErrorCase{"ViolationsOnAnotherCodeAreKept",
                  409,
                  R"j({"error":{"code":409,"message":"stale","status":"ABORTED","details":[)j"
                  R"j({"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[)j"
                  R"j({"field":"etag","description":"changed"}]}]}})j",
                  Code::kAborted,
                  "stale",
                  {{"etag", "changed"}}},
        ErrorCase{"OtherDetailTypesAreIgnored", 400,
                  R"j({"error":{"code":400,"message":"m","status":"INVALID_ARGUMENT","details":[)j"
                  R"j({"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"x"}]}})j",
                  Code::kInvalidArgument, "m"},
        ErrorCase{"MissingStatusNameUsesTheHttpStatus", 503,
                  R"j({"error":{"code":503,"message":"draining"}})j", Code::kUnavailable,
                  "draining"},
        ErrorCase{"UnknownStatusNameUsesTheHttpStatus", 404,
                  R"j({"error":{"message":"gone","status":"VANISHED"}})j", Code::kNotFound, "gone"},
        ErrorCase{"NoMessage", 429, R"j({"error":{"status":"RESOURCE_EXHAUSTED"}})j",
                  Code::kResourceExhausted, "HTTP 429"},
        ErrorCase{"HtmlFromAProxy", 502, "<html>\n<b>Bad Gateway</b></html>", Code::kInternal,
                  "HTTP 502 with a body that is not a google.rpc error: <html> <b>Bad "
                  "Gateway</b></html>"},
        ErrorCase{"EmptyBody", 404, "", Code::kNotFound,
                  "HTTP 404 with a body that is not a google.rpc error"},
        ErrorCase{"EveryCanonicalCodeIsKept", 500,
                  R"j({"error":{"code":500,"message":"lost","status":"DATA_LOSS"}})j",
                  Code::kDataLoss, "lost"}),
    [](const auto& tc) { return tc.param.name; });

TEST(StatusFromHttpError, ShortensALongForeignBody) {
  const Status status = StatusFromHttpError(500, std::string(1000, 'x'));
  EXPECT_EQ(status.message().size(),
            std::string("HTTP 500 with a body that is not a google.rpc error: ").size() + 200 +
                std::string("…").size());
}

struct HttpCodeCase {
  std::string name;
  int http_status;
  Code code;
};

class CodeFromHttpStatusTest : public ::testing::TestWithParam<HttpCodeCase> {};

TEST_P(CodeFromHttpStatusTest, FollowsGoogleMapping) {
  EXPECT_EQ(CodeFromHttpStatus(GetParam().http_status), GetParam().code);
}

INSTANTIATE_TEST_SUITE_P(
    Statuses, CodeFromHttpStatusTest,
    ::testing::Values(HttpCodeCase{"BadRequest", 400, Code::kInvalidArgument},
                      HttpCodeCase{"Unauthorized", 401, Code::kUnauthenticated},
                      HttpCodeCase{"Forbidden", 403, Code::kPermissionDenied},
                      HttpCodeCase{"NotFound", 404, Code::kNotFound},
                      HttpCodeCase{"Conflict", 409, Code::kAborted},
                      HttpCodeCase{"TooManyRequests", 429, Code::kResourceExhausted},
                      HttpCodeCase{"OtherClientError", 418, Code::kFailedPrecondition},
                      HttpCodeCase{"NotImplemented", 501, Code::kUnimplemented},
                      HttpCodeCase{"BadGateway", 502, Code::kInternal},
                      HttpCodeCase{"ServiceUnavailable", 503, Code::kUnavailable},
                      HttpCodeCase{"GatewayTimeout", 504, Code::kDeadlineExceeded}),
    [](const auto& tc) { return tc.param.name; });

TEST(CodeFromName, KnowsEveryCanonicalName) {
  for (int i = 0; i <= static_cast<int>(Code::kUnauthenticated); ++i) {
    const auto code = static_cast<Code>(i);
    EXPECT_EQ(CodeFromName(CodeName(code)), code) << CodeName(code);
  }
  EXPECT_EQ(CodeFromName("not_found"), std::nullopt);
}

}  // namespace
}  // namespace trainyard::cli
