// What a replica's exit means for its job (reference §2.7, §7.6, §7.8), as pure decisions:
//
// - The master decides the outcome: exiting 0 ends the job SUCCEEDED and the other replicas are
//   stopped (parameter servers never exit on their own).
// - A worker, parameter server or evaluator that exits 0 has finished its part; the job goes on.
// - Any replica that exits with a non-zero status fails the job.
// - A replica killed by a signal that trainyard did not send (the seeds' host-maintenance
//   events, the OOM killer, an operator's `kill`) is restarted with the same environment, after
//   an exponential backoff, up to `max_restarts` times; one more such death fails the job.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "plan/replicas.h"
#include "run/launcher.h"

namespace trainyard::control {

struct RestartPolicy {
  int max_restarts = 3;  // per replica
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{30000};
};

struct ExitDecision {
  enum class Action {
    kNone,     // the replica is done; the job goes on
    kRestart,  // start the replica again after `backoff`
    kSucceed,  // the job SUCCEEDED: stop the other replicas
    kFail,     // the job FAILED with `message`: stop the other replicas
  };
  Action action = Action::kNone;
  std::chrono::milliseconds backoff{0};
  std::string message;  // for kFail: the job's errorMessage (without the stderr tail)
};

// `restarts` is how many times this replica was already restarted.
ExitDecision DecideOnExit(plan::Role role, int index, const run::ExitStatus& status, int restarts,
                          const RestartPolicy& policy);

// The delay before restart number `restarts + 1`: initial × 2^restarts, at most max.
std::chrono::milliseconds RestartBackoff(int restarts, const RestartPolicy& policy);

// The service's message for a restart: "The replica worker 0 was terminated by signal 9
// (SIGKILL); restarting it in 1 s (restart 1 of 3)." (`restarts` as for DecideOnExit).
std::string RestartMessage(std::string_view task_name, const run::ExitStatus& status,
                           std::chrono::milliseconds backoff, int restarts,
                           const RestartPolicy& policy);

// `message` followed by the last lines of a replica's stderr, as AI Platform shows a Python
// traceback: "The replica worker 1 exited with a non-zero status of 1. Termination reason:
// Error. Traceback (most recent call last): …". At most `max_lines` lines and `max_bytes`
// bytes of `stderr_tail` are kept (the end of it); nothing is appended when it is blank.
std::string WithStderrTail(std::string message, std::string_view stderr_tail, int max_lines = 20,
                           std::size_t max_bytes = 4000);

}  // namespace trainyard::control
