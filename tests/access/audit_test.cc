// The audit record of a call (access/audit.h): Google's AuditLog fields, the status of failures
// only, and the HTTP → google.rpc code table.
#include "access/audit.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trainyard::access {
namespace {

using nlohmann::json;

AuditEvent Submit() {
  return AuditEvent{.project = "proj",
                    .service = "ml.googleapis.com",
                    .method = "google.cloud.ml.v1.JobService.CreateJob",
                    .resource = "projects/proj/jobs/j1",
                    .principal = "alice",
                    .caller_ip = "127.0.0.1",
                    .user_agent = "gcloud/528",
                    .authorization = {{"projects/proj", "ml.jobs.create", true}}};
}

TEST(AuditRecordTest, SuccessHasGooglesFieldsAndAnEmptyStatus) {
  const json record = json::parse(EncodeAuditRecord(Submit()));
  const json& payload = record["protoPayload"];
  EXPECT_EQ(payload["@type"], "type.googleapis.com/google.cloud.audit.AuditLog");
  EXPECT_EQ(payload["serviceName"], "ml.googleapis.com");
  EXPECT_EQ(payload["methodName"], "google.cloud.ml.v1.JobService.CreateJob");
  EXPECT_EQ(payload["resourceName"], "projects/proj/jobs/j1");
  EXPECT_EQ(payload["authenticationInfo"], json({{"principalEmail", "alice"}}));
  EXPECT_EQ(payload["requestMetadata"],
            json({{"callerIp", "127.0.0.1"}, {"callerSuppliedUserAgent", "gcloud/528"}}));
  EXPECT_EQ(payload["authorizationInfo"],
            json::parse(R"([{"resource":"projects/proj","permission":"ml.jobs.create",
                            "granted":true}])"));
  EXPECT_EQ(payload["status"], json::object());
  EXPECT_EQ(record["resource"],
            json::parse(R"({"type":"audited_resource","labels":{"service":"ml.googleapis.com",
              "method":"google.cloud.ml.v1.JobService.CreateJob","project_id":"proj"}})"));
  EXPECT_FALSE(Failed(Submit()));
}

TEST(AuditRecordTest, FailureCarriesItsCodeAndMessage) {
  AuditEvent event = Submit();
  event.code = Code::kPermissionDenied;
  event.message = "Permission 'ml.jobs.create' denied";
  const json payload = json::parse(EncodeAuditRecord(event))["protoPayload"];
  EXPECT_EQ(payload["status"],
            json({{"code", 7}, {"message", "Permission 'ml.jobs.create' denied"}}));
  EXPECT_TRUE(Failed(event));
}

TEST(AuditRecordTest, AnUnauthenticatedCallHasNoPrincipalNorChecks) {
  AuditEvent event = Submit();
  event.principal.clear();
  event.authorization.clear();
  event.code = Code::kUnauthenticated;
  const json payload = json::parse(EncodeAuditRecord(event))["protoPayload"];
  EXPECT_EQ(payload["authenticationInfo"], json::object());
  EXPECT_FALSE(payload.contains("authorizationInfo"));
}

TEST(AuditRecordTest, LongMessagesAreCutOnACharacterBoundaryAndStayOneLine) {
  AuditEvent event = Submit();
  event.code = Code::kInvalidArgument;
  event.message = std::string(kMaxAuditMessageBytes - 1, 'x') + "é\nmore";
  const std::string text = EncodeAuditRecord(event);
  EXPECT_EQ(text.find('\n'), std::string::npos);
  const std::string message = json::parse(text)["protoPayload"]["status"]["message"];
  EXPECT_EQ(message, std::string(kMaxAuditMessageBytes - 1, 'x') + "…");
}

TEST(AuditRecordTest, InvalidUtf8IsReplacedNotRefused) {
  AuditEvent event = Submit();
  event.resource = "projects/_/buckets/b/objects/\xff";
  const json payload = json::parse(EncodeAuditRecord(event))["protoPayload"];
  EXPECT_EQ(payload["resourceName"], "projects/_/buckets/b/objects/\xEF\xBF\xBD");
}

TEST(AuditCodeTest, HttpStatusesMapToRpcCodes) {
  const struct {
    int http;
    Code code;
  } cases[] = {
      {200, Code::kOk},
      {204, Code::kOk},
      {308, Code::kOk},
      {400, Code::kInvalidArgument},
      {401, Code::kUnauthenticated},
      {403, Code::kPermissionDenied},
      {404, Code::kNotFound},
      {409, Code::kAborted},
      {412, Code::kFailedPrecondition},
      {418, Code::kFailedPrecondition},
      {429, Code::kResourceExhausted},
      {500, Code::kInternal},
      {503, Code::kUnavailable},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(CodeOfHttpStatus(c.http), c.code) << c.http;
  }
}

}  // namespace
}  // namespace trainyard::access
