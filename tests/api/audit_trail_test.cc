// The audit trail's pure parts (api/audit_trail.h): which calls are noted, and the message of
// an error answer in each dialect. The routes' audit rows are checked in route_tables_test.cc.
#include "api/audit_trail.h"

#include <string>

#include <gtest/gtest.h>

namespace trainyard::server {
namespace {

TEST(AuditTrailTest, NotesChangesAndRefusalsOnly) {
  const RouteAudit create{
      .service = kMlService, .method = "google.cloud.ml.v1.JobService.CreateJob", .mutating = true};
  const RouteAudit get{.service = kMlService, .method = "google.cloud.ml.v1.JobService.GetJob"};
  EXPECT_TRUE(AuditTrail::MustNote(create, false, false));
  EXPECT_FALSE(AuditTrail::MustNote(get, false, false));
  EXPECT_TRUE(AuditTrail::MustNote(get, true, false));
  EXPECT_TRUE(AuditTrail::MustNote(get, false, true));
}

TEST(ErrorMessageTest, ReadsEachDialectsMessage) {
  const struct {
    std::string body;
    std::string expected;
  } cases[] = {
      {R"({"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}})", "denied"},
      {R"({"error":{"code":404,"message":"No such object: b/o","errors":[]}})",
       "No such object: b/o"},
      {R"({"kind":"Status","status":"Failure","message":"tfjobs is forbidden","code":403})",
       "tfjobs is forbidden"},
      {"not json", ""},
      {R"({"error":"text"})", ""},
      {"", ""},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ErrorMessageOf(HttpResponse{.status = 403, .body = c.body}), c.expected) << c.body;
  }
}

}  // namespace
}  // namespace trainyard::server
