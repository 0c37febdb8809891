// What a replica's exit means for its job (docs/reference/ai-platform-training.md §2.7, §7.6, §7.8;
// for jobs with extras, docs/reference/kubeflow-tfjob.md §2.2, §2.3 and §5), as pure decisions:
//
// - The master (the primary) decides the outcome: exiting 0 ends the job SUCCEEDED and the other
//   replicas are stopped (parameter servers never exit on their own). With SuccessRule
//   kAllWorkers the job SUCCEEDS only once the master and every worker have exited 0: the last
//   of them to do so ends it.
// - A worker, parameter server or evaluator that exits 0 has finished its part; the job goes on.
// - Whether a failed end (a non-zero exit or a signal) restarts the replica or fails the job is
//   its role's RestartRule:
//     kAiPlatform (ml v1 jobs): a signal trainyard did not send (the seeds' host-maintenance
//       events, the OOM killer, an operator's `kill`) restarts it, a non-zero exit fails the job;
//     kNever: any failed end fails the job;
//     kOnFailure: any failed end restarts it;
//     kAlways: any end restarts it, exit 0 included, except the master's exit 0 (the success
//       rule's);
//     kExitCode: exit 1–127 fails the job (a permanent error), 128–255 and signals (128 + N)
//       restart it.
// - A restart waits an exponential backoff and needs budget: with a backoff limit, restarts of
//   every replica of the job (or trial) together, beyond it the job FAILS as Kubeflow's does
//   ("Job ns/name has failed because it has reached the specified backoff limit"); otherwise
//   `max_restarts` per replica, one more failed end failing the job.
// - With restart_all_on_failure a restart restarts the whole cluster (kRestartJob), counted once.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "base/exit_status.h"
#include "model/job_extras.h"
#include "plan/replicas.h"

namespace trainyard::control {

struct RestartPolicy {
  int max_restarts = 3;  // per replica
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{30000};
};

// What the job asks of one role's replicas' ends: model::JobExtras, or AI Platform's rules.
struct ExitRules {
  model::RestartRule restart = model::RestartRule::kAiPlatform;
  model::SuccessRule success = model::SuccessRule::kPrimary;
  std::optional<int> backoff_limit;  // restarts of the whole job; nullopt: max_restarts each
  bool restart_all = false;          // a restart restarts every replica
  std::string job_name;              // how the backoff message names the job
  bool pool_names = false;           // messages name replicas by worker pool (a Vertex job)
};

// The rules of `role` in a job with `extras` (none: AI Platform's). The job is named
// "<namespace>/<name>" when it is a Kubeflow job, else by `job_id`.
ExitRules ExitRulesOf(const std::optional<model::JobExtras>& extras, plan::Role role,
                      std::string_view job_id);

// One replica's end and what the job's other replicas have done.
struct ReplicaExit {
  plan::Role role = plan::Role::kMaster;
  int index = 0;
  ExitStatus status;
  int restarts = 0;      // this replica's restarts so far
  int job_restarts = 0;  // the job's (or trial's) restarts so far, every replica's
  // SuccessRule kAllWorkers: the master and every worker but this replica have exited 0.
  bool others_succeeded = false;
  // No restart is possible any more (a cluster task's end, recorded once it restarted the
  // replica all it could): an end that would restart it exhausts the budget instead.
  bool final = false;
};

struct ExitDecision {
  enum class Action {
    kNone,        // the replica is done (or waits for the others to succeed); the job goes on
    kRestart,     // start the replica again after `backoff`
    kRestartJob,  // stop every replica, then start them all again after `backoff`
    kSucceed,     // the job SUCCEEDED: stop the other replicas
    kFail,        // the job FAILED with `message`: stop the other replicas
  };
  Action action = Action::kNone;
  std::chrono::milliseconds backoff{0};
  std::string message;  // for kFail: the job's errorMessage (without the stderr tail)
};

ExitDecision DecideOnExit(const ReplicaExit& exit, const ExitRules& rules,
                          const RestartPolicy& policy);

// The delay before restart number `restarts + 1`: initial × 2^restarts, at most max.
std::chrono::milliseconds RestartBackoff(int restarts, const RestartPolicy& policy);

// The service's message for a restart: "The replica worker 0 was terminated by signal 9
// (SIGKILL); restarting it in 1 s (restart 1 of 3)." (of the job's backoff limit when it has
// one, with the job's restarts so far; else of max_restarts, with the replica's), or for
// kRestartJob "…; restarting every replica in 1 s (…)".
std::string RestartMessage(std::string_view task_name, const ReplicaExit& exit,
                           const ExitDecision& decision, const ExitRules& rules,
                           const RestartPolicy& policy);

// `message` followed by the last lines of a replica's stderr, as AI Platform shows a Python
// traceback: "The replica worker 1 exited with a non-zero status of 1. Termination reason:
// Error. Traceback (most recent call last): …". At most `max_lines` lines and `max_bytes`
// bytes of `stderr_tail` are kept (the end of it); nothing is appended when it is blank.
std::string WithStderrTail(std::string message, std::string_view stderr_tail, int max_lines = 20,
                           std::size_t max_bytes = 4000);

}  // namespace trainyard::control
