// The warnings for accepted fields trainyard acts on differently from the operator.
#include "kube/tfjob_notices.h"

#include <gtest/gtest.h>

namespace trainyard::kube {
namespace {

struct Row {
  const char* name;
  void (*edit)(RunPolicy&);
  const char* expected;  // a part of the one notice; nullptr: none
};

class NoticesTest : public ::testing::TestWithParam<Row> {};

TEST_P(NoticesTest, SaysWhatIsNotDoneAsTheOperatorDoes) {
  TFJob job;
  GetParam().edit(job.run_policy);
  const std::vector<std::string> notices = Notices(job);
  if (GetParam().expected == nullptr) {
    EXPECT_TRUE(notices.empty());
    return;
  }
  ASSERT_EQ(notices.size(), 1U);
  EXPECT_NE(notices[0].find(GetParam().expected), std::string::npos) << notices[0];
}

INSTANTIATE_TEST_SUITE_P(
    Fields, NoticesTest,
    ::testing::Values(
        Row{"Nothing", [](RunPolicy&) {}, nullptr},
        Row{"Ttl", [](RunPolicy& p) { p.ttl_seconds_after_finished = 60; },
            "ttlSecondsAfterFinished"},
        Row{"CleanNone", [](RunPolicy& p) { p.clean_pod_policy = "None"; }, "cleanPodPolicy None"},
        Row{"CleanRunning", [](RunPolicy& p) { p.clean_pod_policy = "Running"; }, nullptr},
        // queue, minAvailable and priorityClass are honoured (tfjob_scheduling.h), not warned.
        Row{"Queue", [](RunPolicy& p) { p.scheduling_policy = SchedulingPolicy{.queue = "q"}; },
            nullptr},
        Row{"MinAvailable",
            [](RunPolicy& p) { p.scheduling_policy = SchedulingPolicy{.min_available = 2}; },
            nullptr},
        Row{"PriorityClass",
            [](RunPolicy& p) { p.scheduling_policy = SchedulingPolicy{.priority_class = "high"}; },
            nullptr},
        Row{"MinResources",
            [](RunPolicy& p) {
              p.scheduling_policy = SchedulingPolicy{.min_resources = {{"cpu", "4"}}};
            },
            "minResources is not used"},
        Row{"EmptyScheduling", [](RunPolicy& p) { p.scheduling_policy = SchedulingPolicy{}; },
            nullptr},
        Row{"Suspend", [](RunPolicy& p) { p.suspend = true; }, nullptr}),
    [](const auto& row) { return std::string(row.param.name); });

}  // namespace
}  // namespace trainyard::kube
