#include "control/reconcile/run_rules.h"

#include "control/reconcile/job_limits.h"

namespace trainyard::control {
namespace {

using Step = RunDecision::Step;

RunDecision Stop(model::JobState outcome, std::string message, bool write_outcome = true) {
  return {.step = Step::kStop,
          .outcome = outcome,
          .message = std::move(message),
          .write_outcome = write_outcome};
}

}  // namespace

RunDecision DecideRun(const std::optional<model::Job>& job, const RunSituation& situation,
                      WallTime now) {
  if (!job) {
    return Stop(model::JobState::kCancelled, "", /*write_outcome=*/false);
  }
  if (situation.staging) {
    // A trial is recorded, and its job RUNNING, before it launches.
    const model::JobState expected =
        situation.trial ? model::JobState::kRunning : model::JobState::kPreparing;
    if (job->state != expected) {
      return {.step = Step::kDropStaging};
    }
    if (situation.trial) {
      return {};  // the study sees to its job's suspension and limits
    }
    if (model::IsSuspended(*job)) {
      return {.step = Step::kSuspend};
    }
    if (PastMaxWaitTime(*job, now)) {
      return {.step = Step::kCancelForWait,
              .outcome = model::JobState::kCancelled,
              .message = std::string(MaxWaitTimeMessage())};
    }
    return {};
  }
  if (job->state == model::JobState::kCancelling) {
    return Stop(model::JobState::kCancelled, std::string(CancelledMessage()));
  }
  if (model::IsTerminal(job->state)) {
    return Stop(job->state, "", /*write_outcome=*/false);
  }
  if (!situation.trial && model::IsSuspended(*job)) {
    return {.step = Step::kSuspend};
  }
  if (situation.trial) {
    return situation.study_ending ? Stop(model::JobState::kCancelled, "") : RunDecision{};
  }
  if (PastMaxRunningTime(*job, now)) {
    RunDecision stop = Stop(model::JobState::kCancelled, std::string(MaxRunningTimeMessage()));
    stop.mark_cancelling = true;
    return stop;
  }
  return {};
}

}  // namespace trainyard::control
