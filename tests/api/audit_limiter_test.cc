// The bound on unauthenticated calls' audit records (api/audit_limiter.h): per address and
// project, `max_records` per interval, the rest summarised once the interval has ended. Times
// come from a fake clock.
#include "api/audit_limiter.h"

#include <chrono>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/audit_trail.h"
#include "base/time_format.h"
#include "fakes/fake_clock.h"
#include "store/audit_store.h"

namespace trainyard::server {
namespace {

using access::AuditEvent;
using trainyard::testing::FakeClock;

constexpr AuditLimits kLimits{
    .max_records = 2, .interval = std::chrono::seconds(60), .max_keys = 2};

// One call: after `advance`, from `addr` naming `project` ("" for a `TakeEnded` instead); what
// comes out, each "R addr project" (the call's own record) or "S addr project N" (a summary).
struct Step {
  int advance = 0;  // seconds
  std::string addr;
  std::string project;
  std::vector<std::string> out;
};

struct LimiterCase {
  std::string label;
  std::vector<Step> steps;
};

std::string Describe(const AuditEvent& event) {
  if (event.message.empty()) {
    return fmt::format("R {} {}", event.caller_ip, event.project);
  }
  return fmt::format("S {} {} {}", event.caller_ip, event.project,
                     event.message.substr(0, event.message.find(' ')));
}

class AuditLimiterTest : public ::testing::TestWithParam<LimiterCase> {};

TEST_P(AuditLimiterTest, RecordsUpToTheLimitThenSummarises) {
  FakeClock clock;
  UnauthenticatedAuditLimiter limiter(clock, kLimits);
  int index = 0;
  for (const Step& step : GetParam().steps) {
    clock.Advance(std::chrono::seconds(step.advance));
    const std::vector<AuditEvent> events =
        step.project.empty()
            ? limiter.TakeEnded()
            : limiter.Admit(AuditEvent{.project = step.project, .caller_ip = step.addr});
    std::vector<std::string> out;
    for (const AuditEvent& event : events) {
      out.push_back(Describe(event));
    }
    EXPECT_EQ(out, step.out) << "step " << index;
    ++index;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AuditLimiterTest,
    ::testing::Values(LimiterCase{"UnderTheLimitAllAreRecorded",
                                  {{0, "a", "p", {"R a p"}}, {1, "a", "p", {"R a p"}}}},
                      LimiterCase{"PastTheLimitCountedThenSummarisedWithTheNextCall",
                                  {{0, "a", "p", {"R a p"}},
                                   {0, "a", "p", {"R a p"}},
                                   {0, "a", "p", {}},
                                   {59, "a", "p", {}},
                                   {1, "a", "p", {"S a p 2", "R a p"}}}},
                      LimiterCase{"AddressesAndProjectsAreCountedApart",
                                  {{0, "a", "p", {"R a p"}},
                                   {0, "a", "p", {"R a p"}},
                                   {0, "a", "p", {}},
                                   {0, "b", "p", {"R b p"}},
                                   {0, "a", "q", {}}}},  // a third key: past max_keys (see below)
                      LimiterCase{"AnotherAddressesCallWritesTheSummary",
                                  {{0, "a", "p", {"R a p"}},
                                   {0, "a", "p", {"R a p"}},
                                   {0, "a", "p", {}},
                                   {61, "b", "p", {"S a p 1", "R b p"}}}},
                      LimiterCase{"NoSummaryWhenNothingWasLeftOut",
                                  {{0, "a", "p", {"R a p"}}, {60, "a", "p", {"R a p"}}}},
                      LimiterCase{"TheIntervalRunsFromTheFirstRecord",
                                  {{0, "a", "p", {"R a p"}},
                                   {30, "a", "p", {"R a p"}},
                                   {20, "a", "p", {}},
                                   {10, "a", "p", {"S a p 1", "R a p"}}}},
                      LimiterCase{"TakeEndedWritesDueSummariesOnly",
                                  {{0, "a", "p", {"R a p"}},
                                   {0, "a", "p", {"R a p"}},
                                   {0, "a", "p", {}},
                                   {30, "", "", {}},
                                   {30, "", "", {"S a p 1"}},
                                   {0, "", "", {}}}},
                      LimiterCase{"NewKeysPastTheBoundAreSummarisedServerWide",
                                  {{0, "a", "p", {"R a p"}},
                                   {0, "b", "p", {"R b p"}},
                                   {0, "c", "p", {}},
                                   {0, "d", "q", {}},
                                   {60, "e", "p", {"S  - 2", "R e p"}}}}),
    [](const ::testing::TestParamInfo<LimiterCase>& param) { return param.param.label; });

TEST(AuditLimiterSummaryTest, SaysHowManyFromWhomSinceWhen) {
  FakeClock clock;
  UnauthenticatedAuditLimiter limiter(clock, kLimits);
  const std::string since = FormatTimestamp(clock.Now());
  const AuditEvent call{.project = "p",
                        .service = "ml.googleapis.com",
                        .method = "google.cloud.ml.v1.JobService.CreateJob",
                        .resource = "projects/p",
                        .caller_ip = "10.0.0.7",
                        .code = Code::kUnauthenticated,
                        .message = "Request is missing required authentication credential."};
  for (int i = 0; i < 5; ++i) {
    limiter.Admit(call);
  }
  clock.Advance(std::chrono::seconds(60));
  const std::vector<AuditEvent> ended = limiter.TakeEnded();
  ASSERT_EQ(ended.size(), 1U);
  EXPECT_EQ(ended[0].message, "3 more refused requests from 10.0.0.7 since " + since);
  EXPECT_EQ(ended[0].project, "p");
  EXPECT_EQ(ended[0].method, call.method);
  EXPECT_EQ(ended[0].code, Code::kUnauthenticated);
  EXPECT_EQ(ended[0].time, clock.Now());
}

class RecordingStore final : public store::AuditStore {
 public:
  Status Append(const AuditEvent& event) override {
    events.push_back(event);
    return {};
  }
  std::vector<AuditEvent> events;
};

TEST(AuditTrailLimitTest, UnauthenticatedCallsAreBoundedAndOthersAreNot) {
  FakeClock clock;
  RecordingStore store;
  const AuditTrail trail(store, nullptr, clock, kLimits);
  const HttpRequest request{
      .method = "POST", .target = "/v1/projects/p/jobs", .remote_address = "10.0.0.7"};
  AuditNote unauthenticated{.unauthenticated = true,
                            .route = "jobs.create",
                            .project = "p",
                            .resource = "projects/p",
                            .noted = true};
  for (int i = 0; i < 100; ++i) {
    trail.Record(request, HttpResponse{.status = 401}, unauthenticated);
  }
  EXPECT_EQ(store.events.size(), 2U);
  AuditNote refused = unauthenticated;  // an authenticated caller refused: always recorded
  refused.unauthenticated = false;
  refused.refused = true;
  refused.principal = "alice";
  for (int i = 0; i < 5; ++i) {
    trail.Record(request, HttpResponse{.status = 403}, refused);
  }
  EXPECT_EQ(store.events.size(), 7U);
  clock.Advance(std::chrono::seconds(60));
  trail.Record(request, HttpResponse{.status = 403}, refused);  // writes the summary first
  ASSERT_EQ(store.events.size(), 9U);
  EXPECT_EQ(store.events[7].message.substr(0, 41), "98 more refused requests from 10.0.0.7 si");
  EXPECT_EQ(store.events[8].principal, "alice");
}

}  // namespace
}  // namespace trainyard::server
