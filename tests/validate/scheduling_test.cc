#include <chrono>

#include "validate/rule_case.h"

namespace trainyard::validate::testing {
namespace {

using model::Job;
using std::chrono::seconds;

model::Scheduling& Sched(Job& job) {
  auto& scheduling = In(job).scheduling;
  return scheduling ? *scheduling : scheduling.emplace();
}

class SchedulingRules : public RuleTest {};
TEST_P(SchedulingRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

// docs/reference/ai-platform-training.md §2.3/§2.8 #13.
INSTANTIATE_TEST_SUITE_P(
    Scheduling, SchedulingRules,
    ::testing::Values(
        RuleCase{"Empty", RuntimeJob, [](Job& j) { Sched(j); }, ""},
        RuleCase{"WaitExactly1800s", RuntimeJob,
                 [](Job& j) { Sched(j).max_wait_time = seconds(1800); }, ""},
        RuleCase{"Wait1799s", RuntimeJob, [](Job& j) { Sched(j).max_wait_time = seconds(1799); },
                 "trainingInput.scheduling.maxWaitTime"},
        RuleCase{"RunOneSecond", RuntimeJob, [](Job& j) { Sched(j).max_running_time = seconds(1); },
                 ""},
        RuleCase{"RunZero", RuntimeJob, [](Job& j) { Sched(j).max_running_time = seconds(0); },
                 "trainingInput.scheduling.maxRunningTime"},
        RuleCase{"RunNegative", RuntimeJob, [](Job& j) { Sched(j).max_running_time = seconds(-5); },
                 "trainingInput.scheduling.maxRunningTime"},
        RuleCase{"Priority0", RuntimeJob, [](Job& j) { Sched(j).priority = 0; }, ""},
        RuleCase{"Priority1000", RuntimeJob, [](Job& j) { Sched(j).priority = 1000; }, ""},
        RuleCase{"Priority1001", RuntimeJob, [](Job& j) { Sched(j).priority = 1001; },
                 "trainingInput.scheduling.priority"},
        RuleCase{"PriorityNegative", RuntimeJob, [](Job& j) { Sched(j).priority = -1; },
                 "trainingInput.scheduling.priority"},
        RuleCase{"AllWrongInFieldOrder", RuntimeJob,
                 [](Job& j) {
                   Sched(j).priority = 2000;
                   Sched(j).max_wait_time = seconds(10);
                   Sched(j).max_running_time = seconds(0);
                 },
                 "trainingInput.scheduling.maxRunningTime,trainingInput.scheduling.maxWaitTime,"
                 "trainingInput.scheduling.priority"}),
    CaseName);

}  // namespace
}  // namespace trainyard::validate::testing
