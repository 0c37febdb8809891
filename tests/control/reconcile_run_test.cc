// What the stored job asks of a run the executor holds (control/reconcile/run_rules.h), one row
// per rule: the stored job and the run's situation in, the decision out.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "control/reconcile/run_rules.h"
#include "control/reconcile_jobs.h"
#include "support/sample_jobs.h"

namespace trainyard::control {
namespace {

using model::JobState;
using testing::kEpoch;
using testing::RunningAtMost;
using testing::Suspended;
using testing::WaitingAtMost;
using Step = RunDecision::Step;
using std::chrono::seconds;

const WallTime kNow = kEpoch + seconds(100);

// A job in `state`, created at kEpoch and started 10 s later.
model::Job Stored(JobState state) {
  model::Job job = trainyard::testing::ValidRuntimeJob("j");
  job.state = state;
  job.create_time = kEpoch;
  job.start_time = kEpoch + seconds(10);
  return job;
}

RunDecision Stop(JobState outcome, std::string message, bool write = true,
                 bool mark_cancelling = false) {
  return {.step = Step::kStop,
          .outcome = outcome,
          .message = std::move(message),
          .write_outcome = write,
          .mark_cancelling = mark_cancelling};
}

struct RunCase {
  std::string name;
  std::optional<model::Job> job;
  RunSituation situation;
  RunDecision decision;
};

constexpr RunSituation kStaging{.staging = true};
constexpr RunSituation kRunning{};
constexpr RunSituation kTrial{.trial = true};

std::vector<RunCase> RunCases() {
  const RunDecision go_on{};
  return {
      {"staging, the job gone: stopped, nothing written", std::nullopt, kStaging,
       Stop(JobState::kCancelled, "", /*write=*/false)},
      {"running, the job gone: stopped, nothing written", std::nullopt, kRunning,
       Stop(JobState::kCancelled, "", /*write=*/false)},
      {"staging, still PREPARING: goes on", Stored(JobState::kPreparing), kStaging, go_on},
      {"staging, cancelled meanwhile: its result is dropped",
       Stored(JobState::kCancelled),
       kStaging,
       {.step = Step::kDropStaging}},
      {"staging, suspended: back to the queue",
       Suspended(Stored(JobState::kPreparing)),
       kStaging,
       {.step = Step::kSuspend}},
      {"a trial's staging ignores the job's suspension and maxWaitTime",
       Suspended(WaitingAtMost(Stored(JobState::kRunning), seconds(1))),
       {.staging = true, .trial = true},
       go_on},
      {"a trial's staging is dropped once its job no longer runs",
       Stored(JobState::kCancelling),
       {.staging = true, .trial = true},
       {.step = Step::kDropStaging}},
      {"staging past maxWaitTime: cancelled, saying so",
       WaitingAtMost(Stored(JobState::kPreparing), seconds(99)),
       kStaging,
       {.step = Step::kCancelForWait,
        .outcome = JobState::kCancelled,
        .message = "Job cancelled: exceeded maxWaitTime."}},
      {"staging within maxWaitTime: goes on",
       WaitingAtMost(Stored(JobState::kPreparing), seconds(100)), kStaging, go_on},
      {"running: goes on", Stored(JobState::kRunning), kRunning, go_on},
      {"a cancel: stopped, CANCELLED by the user", Stored(JobState::kCancelling), kRunning,
       Stop(JobState::kCancelled, "Job was cancelled by the user.")},
      {"ended elsewhere: stopped, its outcome not written again", Stored(JobState::kFailed),
       kRunning, Stop(JobState::kFailed, "", /*write=*/false)},
      {"suspended while running: stopped and queued again",
       Suspended(Stored(JobState::kRunning)),
       kRunning,
       {.step = Step::kSuspend}},
      {"past maxRunningTime: CANCELLING, then stopped",
       RunningAtMost(Stored(JobState::kRunning), seconds(89)), kRunning,
       Stop(JobState::kCancelled, "Job cancelled: exceeded maxRunningTime.", true, true)},
      {"within maxRunningTime: goes on", RunningAtMost(Stored(JobState::kRunning), seconds(90)),
       kRunning, go_on},
      {"a trial leaves its job's maxRunningTime to the study",
       RunningAtMost(Stored(JobState::kRunning), seconds(1)), kTrial, go_on},
      {"a trial whose study ends is stopped",
       Stored(JobState::kRunning),
       {.trial = true, .study_ending = true},
       Stop(JobState::kCancelled, "")},
      {"a trial ignores its job's suspension", Suspended(Stored(JobState::kRunning)), kTrial,
       go_on},
  };
}

TEST(DecideRun, EachRule) {
  for (const RunCase& c : RunCases()) {
    const RunDecision decision = DecideRun(c.job, c.situation, kNow);
    EXPECT_EQ(static_cast<int>(decision.step), static_cast<int>(c.decision.step)) << c.name;
    EXPECT_EQ(decision.outcome, c.decision.outcome) << c.name;
    EXPECT_EQ(decision.message, c.decision.message) << c.name;
    EXPECT_EQ(decision.write_outcome, c.decision.write_outcome) << c.name;
    EXPECT_EQ(decision.mark_cancelling, c.decision.mark_cancelling) << c.name;
  }
}

}  // namespace
}  // namespace trainyard::control
