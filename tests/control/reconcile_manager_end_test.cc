#include <gtest/gtest.h>

#include "control/reconcile/job_limits.h"
#include "control/reconcile/manager_end.h"

namespace trainyard::control {
namespace {

struct Case {
  std::string name;
  ManagerJobEnd end;
  ManagerEndOutcome want;
};

ManagerJobEnd Ended(std::string state, std::string reason = "None", bool limit = false,
                    std::vector<std::string> missing = {"master-replica-0"}) {
  return {.manager = "Slurm",
          .batch_id = "42",
          .state = std::move(state),
          .reason = std::move(reason),
          .has_max_running_time = limit,
          .missing = std::move(missing)};
}

TEST(DecideManagerEndTest, TheManagersStateSaysHowTheRunEnded) {
  ManagerJobEnd gone = Ended("");
  gone.known = false;
  gone.missing = {"master-replica-0", "worker-replica-0"};
  ManagerJobEnd gone_cancelled = Ended("CANCELLED");
  gone_cancelled.known = false;
  const std::vector<Case> cases = {
      {"TimeoutOfAJobWithALimitIsItsLimit",
       Ended("TIMEOUT", "None", true),
       {model::JobState::kCancelled, std::string(MaxRunningTimeMessage()), true}},
      {"TimeoutWithoutALimitIsAFailure",
       Ended("TIMEOUT"),
       {model::JobState::kFailed,
        "The Slurm job 42 ended TIMEOUT before its replica master-replica-0 ended.", false}},
      {"CancelledOutside",
       Ended("CANCELLED", "None", true),
       {model::JobState::kCancelled, "The Slurm job 42 was cancelled outside trainyard.", false}},
      {"NodeFailNamesTheReasonAndReplicas",
       Ended("NODE_FAIL", "NodeDown", false, {"master-replica-0", "worker-replica-0"}),
       {model::JobState::kFailed,
        "The Slurm job 42 ended NODE_FAIL (NodeDown) before its replicas master-replica-0, "
        "worker-replica-0 ended.",
        false}},
      {"AnEmptyReasonIsLeftOut",
       Ended("FAILED", ""),
       {model::JobState::kFailed,
        "The Slurm job 42 ended FAILED before its replica master-replica-0 ended.", false}},
      {"UnknownToTheManager",
       gone,
       {model::JobState::kFailed,
        "Slurm no longer knows job 42 before its replicas master-replica-0, worker-replica-0 "
        "ended.",
        false}},
      {"AStateWordOfAnUnknownJobIsNotBelieved",
       gone_cancelled,
       {model::JobState::kFailed,
        "Slurm no longer knows job 42 before its replica master-replica-0 ended.", false}},
  };
  for (const Case& c : cases) {
    const ManagerEndOutcome got = DecideManagerEnd(c.end);
    EXPECT_EQ(got.state, c.want.state) << c.name;
    EXPECT_EQ(got.message, c.want.message) << c.name;
    EXPECT_EQ(got.cancelling_first, c.want.cancelling_first) << c.name;
  }
}

}  // namespace
}  // namespace trainyard::control
