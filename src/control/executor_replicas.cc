// The executor's handling of a running job's replicas' ends: the exit rules
// (control/reconcile/replica_policy.h), restarts of one replica or of the whole cluster, and
// suspension.
#include <algorithm>
#include <cmath>
#include <csignal>

#include <fmt/format.h>

#include "control/executor.h"
#include "control/executor_run.h"
#include "logs/log_reader.h"

namespace trainyard::control {
void Executor::HandleExit(Run& run, std::size_t index, const ExitStatus& status) {
  Run::Replica& replica = run.replicas[index];
  replica.alive = false;
  replica.last_exit = status;
  const WallTime handled = Now();
  if (status.ended) {
    // Its supervisor recorded when it ended: that counts, not when the server saw it (issue #31:
    // a server down meanwhile added its downtime to endTime and the ML units).
    const WallTime ended = std::max(std::min(*status.ended, handled), replica.started_wall);
    replica.ended_wall = ended;
    replica.seconds += std::chrono::duration<double>(ended - replica.started_wall).count();
  } else {
    replica.ended_wall = handled;
    replica.seconds += std::chrono::duration<double>(clock_.Monotonic() - replica.started).count();
  }
  if (run.Stopping() || run.job_restart) {
    return;  // an end trainyard asked for
  }
  // SuccessRule kAllWorkers: whether the master and every other worker have exited 0, not to be
  // started again.
  const bool others_succeeded = std::ranges::all_of(run.replicas, [&](const Run::Replica& other) {
    const plan::Role role = other.shape.role;
    return &other == &replica || (role != plan::Role::kMaster && role != plan::Role::kWorker) ||
           (!other.alive && !other.restart_at && other.last_exit && other.last_exit->Succeeded());
  });
  const ExitRules rules = ExitRulesOf(run.extras, replica.shape.role, run.job_id);
  const ReplicaExit exit{.role = replica.shape.role,
                         .index = replica.shape.index,
                         .status = status,
                         .restarts = replica.restarts,
                         .job_restarts = run.restarts,
                         .others_succeeded = others_succeeded,
                         // A backend that restarts replicas itself (a cluster's node agent)
                         // reports only an end no restart is left for.
                         .final = backend_->RestartsReplicas()};
  const ExitDecision decision = DecideOnExit(exit, rules, options_.restart);
  switch (decision.action) {
    case ExitDecision::Action::kNone:
      return;
    case ExitDecision::Action::kRestart:
      ++run.restarts;
      replica.restart_at = clock_.Monotonic() + decision.backoff;
      Say(run, false,
          RestartMessage(replica.shape.task_name, exit, decision, rules, options_.restart));
      return;
    case ExitDecision::Action::kRestartJob:
      ++run.restarts;
      Say(run, false,
          RestartMessage(replica.shape.task_name, exit, decision, rules, options_.restart));
      RestartJob(run, decision.backoff);
      return;
    case ExitDecision::Action::kSucceed:
      BeginStop(run, model::JobState::kSucceeded, "");
      return;
    case ExitDecision::Action::kFail:
      BeginStop(run, model::JobState::kFailed,
                WithStderrTail(decision.message, logs::ReadStderrTail(replica.spec.log_path)));
      return;
  }
}

void Executor::RestartJob(Run& run, std::chrono::milliseconds backoff) {
  const MonoTime now = clock_.Monotonic();
  run.job_restart = Run::JobRestart{.at = now + backoff, .stop_started = now};
  for (Run::Replica& replica : run.replicas) {
    replica.restart_at.reset();
  }
  backend_->Stop(run);
}

void Executor::CheckRestarts(Run& run) {
  const MonoTime now = clock_.Monotonic();
  if (run.job_restart) {
    Run::JobRestart& restart = *run.job_restart;
    const bool any_alive = std::any_of(run.replicas.begin(), run.replicas.end(),
                                       [](const Run::Replica& replica) { return replica.alive; });
    if (any_alive) {
      if (!restart.killed && now - restart.stop_started >= options_.stop_grace) {
        restart.killed = true;
        backend_->Kill(run);
      }
      return;
    }
    if (now < restart.at) {
      return;
    }
    run.job_restart.reset();
    for (Run::Replica& replica : run.replicas) {
      replica.restart_at = now;  // every replica is due now
    }
  }
  for (std::size_t i = 0; i < run.replicas.size(); ++i) {
    Run::Replica& replica = run.replicas[i];
    if (replica.restart_at && *replica.restart_at <= now) {
      ++replica.restarts;
      Status started = backend_->StartReplica(run, i);
      if (!started.ok()) {
        BeginStop(run, model::JobState::kFailed, started.message());
        return;
      }
    }
  }
}

void Executor::Suspend(Run& run, std::string_view why) {
  Say(run, false, why);
  BeginStop(run, model::JobState::kQueued, "");
}

void Executor::Requeue(Run& run, double ml_units) {
  const WallTime now = Now();
  const Result<model::Job> written = Transition(run.project, run.job_id, [&](model::Job& current) {
    switch (current.state) {
      case model::JobState::kPreparing:
      case model::JobState::kRunning:
        current.state = model::JobState::kQueued;
        current.start_time.reset();  // set again when it is placed (Kubeflow resets it too)
        current.job_position = 0;
        break;
      case model::JobState::kCancelling:  // cancelled while it was being suspended
        current.state = model::JobState::kCancelled;
        current.error_message = CancelledMessage();
        current.end_time = now;
        break;
      default:
        return false;
    }
    if (ml_units > 0) {
      if (!current.training_output) {
        current.training_output.emplace();
      }
      current.training_output->consumed_ml_units =
          std::round((current.training_output->consumed_ml_units + ml_units) * 100) / 100;
    }
    return true;
  });
  // A refused write leaves the job RUNNING with no run: the next queue pass takes it back as an
  // orphan, QUEUED since it is suspended (reconcile/queue.h).
  WarnIfRefused(written, run.project, run.job_id, "requeued");
}

}  // namespace trainyard::control
