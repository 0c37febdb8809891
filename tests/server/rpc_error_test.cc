#include "server/rpc_error.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trainyard::server {
namespace {

struct CodeCase {
  std::string name;
  Status status;
  int http;
};

class HttpStatusTest : public ::testing::TestWithParam<CodeCase> {};

TEST_P(HttpStatusTest, MapsCodeAsReferenceSection15Says) {
  const CodeCase& tc = GetParam();
  EXPECT_EQ(HttpStatusFor(tc.status.code()), tc.http);
  const HttpResponse response = ErrorResponse(tc.status);
  EXPECT_EQ(response.status, tc.http);
  EXPECT_EQ(response.content_type, "application/json; charset=UTF-8");
  const auto body = nlohmann::json::parse(response.body);
  EXPECT_EQ(body["error"]["code"], tc.http);
  EXPECT_EQ(body["error"]["status"], std::string(CodeName(tc.status.code())));
  EXPECT_EQ(body["error"]["message"], tc.status.message());
}

INSTANTIATE_TEST_SUITE_P(
    Codes, HttpStatusTest,
    ::testing::Values(CodeCase{"InvalidArgument", Status::InvalidArgument("x"), 400},
                      CodeCase{"FailedPrecondition", Status::FailedPrecondition("x"), 400},
                      CodeCase{"OutOfRange", Status::OutOfRange("x"), 400},
                      CodeCase{"Unauthenticated", Status::Unauthenticated("x"), 401},
                      CodeCase{"PermissionDenied", Status::PermissionDenied("x"), 403},
                      CodeCase{"NotFound", Status::NotFound("x"), 404},
                      CodeCase{"AlreadyExists", Status::AlreadyExists("x"), 409},
                      CodeCase{"Aborted", Status::Aborted("x"), 409},
                      CodeCase{"ResourceExhausted", Status::ResourceExhausted("x"), 429},
                      CodeCase{"Unimplemented", Status::Unimplemented("x"), 501},
                      CodeCase{"Internal", Status::Internal("x"), 500},
                      CodeCase{"Unavailable", Status::Unavailable("x"), 503},
                      CodeCase{"DeadlineExceeded", Status::DeadlineExceeded("x"), 504}),
    [](const auto& tc) { return tc.param.name; });

TEST(RpcErrorBody, CarriesEveryFieldViolationAsBadRequestDetails) {
  const Status status = Status::InvalidArgument(std::vector<FieldViolation>{
      {"jobId", "must start with a letter"}, {"trainingInput.region", "is required"}});
  const auto body = nlohmann::json::parse(RpcErrorBody(400, status));
  const auto expected = nlohmann::json::parse(R"json({"error":{
      "code":400,"message":"Field: jobId Error: must start with a letter (and 1 more)",
      "status":"INVALID_ARGUMENT",
      "details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[
        {"field":"jobId","description":"must start with a letter"},
        {"field":"trainingInput.region","description":"is required"}]}]}})json");
  EXPECT_EQ(body, expected);
}

TEST(RpcErrorBody, CarriesAQuotaRefusalsViolationsAsQuotaFailureDetails) {
  const Status status = Status::FromCode(Code::kResourceExhausted, "over quota",
                                         {{"project:p", "Quota … is 4; the job needs 8."}});
  const auto body = nlohmann::json::parse(RpcErrorBody(429, status));
  const auto expected = nlohmann::json::parse(R"json({"error":{
      "code":429,"message":"over quota","status":"RESOURCE_EXHAUSTED",
      "details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[
        {"subject":"project:p","description":"Quota … is 4; the job needs 8."}]}]}})json");
  EXPECT_EQ(body, expected);
}

TEST(RpcErrorBody, HasNoDetailsWithoutViolations) {
  const auto body = nlohmann::json::parse(RpcErrorBody(404, Status::NotFound("no such job")));
  EXPECT_FALSE(body["error"].contains("details"));
  EXPECT_EQ(body["error"]["code"], 404);
}

TEST(RpcErrorBody, KeepsTheTransportStatusItIsGiven) {
  const HttpResponse response = ErrorResponse(413, Status::InvalidArgument("too big"));
  EXPECT_EQ(response.status, 413);
  EXPECT_EQ(nlohmann::json::parse(response.body)["error"]["code"], 413);
}

TEST(RpcErrorBody, ReplacesInvalidUtf8InEchoedInput) {
  const std::string body = RpcErrorBody(400, Status::InvalidArgument("bad \xff byte"));
  const auto parsed = nlohmann::json::parse(body);  // would throw on invalid UTF-8
  EXPECT_EQ(parsed["error"]["message"], "bad \xEF\xBF\xBD byte");
}

// Issue #31: what an error repeats of the request is bounded. A 10 MB label value is quoted in
// its description and again in the message; 100,000 bad labels are one violation each.
TEST(RpcErrorBody, QuotesAtMostAFewKibibytesOfTheRequest) {
  const std::string value(std::size_t{10} << 20U, 'x');
  const Status status =
      Status::InvalidArgument(std::vector<FieldViolation>{{"labels", "value '" + value + "'"}});
  const std::string body = RpcErrorBody(400, status);
  EXPECT_LT(body.size(), std::size_t{10} << 10U);
  const auto parsed = nlohmann::json::parse(body);
  const std::string description =
      parsed["error"]["details"][0]["fieldViolations"][0]["description"];
  EXPECT_TRUE(description.starts_with("value 'xxx")) << description.substr(0, 20);
  EXPECT_TRUE(description.ends_with("…")) << description.substr(description.size() - 20);
}

TEST(RpcErrorBody, ListsAHundredViolationsAndCountsTheRest) {
  const std::vector<FieldViolation> many(100'000,
                                         FieldViolation{"labels", "label key 'K' is invalid"});
  const auto parsed = nlohmann::json::parse(RpcErrorBody(400, Status::InvalidArgument(many)));
  const auto& listed = parsed["error"]["details"][0]["fieldViolations"];
  ASSERT_EQ(listed.size(), 101U);
  EXPECT_EQ(listed[99]["field"], "labels");
  EXPECT_EQ(listed[100]["description"], "99900 more violations, not listed");
}

}  // namespace
}  // namespace trainyard::server
