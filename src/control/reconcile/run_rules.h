// What the stored job asks of a run the executor holds, on each pass: go on, drop its staging,
// suspend it, cancel it for its maxWaitTime, or stop it with an outcome. Pure: the executor applies
// the decision (control/executor_lifecycle.cc CheckRun); the run's own timers (the stop's grace,
// restarts' backoff, a trial's metrics) stay the executor's.
//
// The job is gone (deleted): whatever runs is stopped (a staging's result dropped), and no
// outcome is written.
// Staging (PREPARING, packages being installed):
//   - the job is no longer PREPARING (cancelled; a trial's: no longer RUNNING): the staging's
//     result is dropped;
//   - suspended (not a trial): back to the queue at once (nothing has started);
//   - past its maxWaitTime: CANCELLED, saying so.
// Running:
//   - CANCELLING: stopped, CANCELLED "Job was cancelled by the user.";
//   - already terminal (written elsewhere): stopped, its outcome not written again;
//   - suspended (not a trial): stopped, then QUEUED again;
//   - a trial whose study is ending or gone: stopped, CANCELLED;
//   - past its maxRunningTime (not a trial: the study sees to its job's limits): CANCELLING, then
//     stopped, CANCELLED "Job cancelled: exceeded maxRunningTime.".
#pragma once

#include <optional>
#include <string>

#include "base/clock.h"
#include "model/job.h"

namespace trainyard::control {

struct RunSituation {
  bool staging = false;       // PREPARING: its packages or images are being made ready
  bool trial = false;         // a tuning trial's run
  bool study_ending = false;  // a trial's study is ending or gone
};

struct RunDecision {
  enum class Step {
    kContinue,       // nothing the stored job asks
    kDropStaging,    // the staging's result is not wanted
    kSuspend,        // stop (if started) and put the job back in the queue
    kCancelForWait,  // staging past maxWaitTime: write CANCELLED, drop the staging
    kStop,           // stop the replicas, then end in `outcome`
  };
  Step step = Step::kContinue;
  model::JobState outcome = model::JobState::kUnspecified;
  std::string message;
  bool write_outcome = true;     // false: the job ended elsewhere (or is gone)
  bool mark_cancelling = false;  // store CANCELLING first (maxRunningTime)

  friend bool operator==(const RunDecision&, const RunDecision&) = default;
};

// `job`: the job as stored now, nullopt when it is gone.
RunDecision DecideRun(const std::optional<model::Job>& job, const RunSituation& situation,
                      WallTime now);

}  // namespace trainyard::control
