// The executor's handling of one running job: launch, exits, restarts, stop, outcome.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "control/executor.h"
#include "control/executor_run.h"
#include "control/job_directories.h"
#include "control/job_layout.h"
#include "control/reconcile/run_rules.h"
#include "control/replica_specs.h"
#include "control/service_log.h"
#include "plan/cluster_plan.h"
#include "tuning/study_policy.h"

namespace trainyard::control {

void Executor::MarkCancelling(const std::string& project, const std::string& job_id) {
  WriteIf(model::JobState::kRunning, project, job_id, "cancelling",
          [](model::Job& current) { current.state = model::JobState::kCancelling; });
}

bool Executor::EndPreparing(const std::string& project, const std::string& job_id,
                            model::JobState outcome, const std::string& message) {
  const WallTime end = Now();
  return WriteIf(model::JobState::kPreparing, project, job_id, "end",
                 [&](model::Job& current) {
                   current.state = outcome;
                   current.error_message = message;
                   current.end_time = end;
                 })
      .has_value();
}

void Executor::HandleStaged(const std::string& key, const Status& status,
                            std::optional<model::Job> job) {
  if (auto study = studies_.find(key); study != studies_.end()) {
    Study& staged = *study->second;
    if (staged.phase != Study::Phase::kStaging) {
      return;
    }
    staged.phase = Study::Phase::kTrials;
    std::optional<sched::Allocation> room = std::exchange(staged.pending, std::nullopt);
    if (!status.ok()) {
      staged.end = Study::End{.outcome = model::JobState::kFailed, .message = status.message()};
    } else if (room) {
      StartTrial(staged, std::move(*room));
    }
    return;
  }
  auto found = runs_.find(key);
  if (found == runs_.end()) {
    return;
  }
  Run& run = *found->second;
  if (run.phase != Run::Phase::kStaging) {
    return;
  }
  run.staged = status;
  if (job) {
    ProceedStaged(run, std::move(*job));
  } else {
    CheckRun(run);  // reads the job, then goes on as it says
  }
}

void Executor::ProceedStaged(Run& run, model::Job job) {
  if (!run.staged->ok()) {
    BeginStop(run, model::JobState::kFailed, run.staged->message());
    return;
  }
  Launch(run, std::move(job));
}

void Executor::DropStaging(Run& run) {
  if (auto staging = staging_.find(run.key); staging != staging_.end()) {
    staging->second.request_stop();  // its report drops the run
    return;
  }
  run.phase = Run::Phase::kDone;
}

void Executor::Launch(Run& run, std::optional<model::Job> known) {
  Result<model::Job> job =
      known ? Result<model::Job>(std::move(*known)) : store_.Get(run.project, run.job_id);
  // A trial is recorded (and its job RUNNING) before it launches.
  const model::JobState expected =
      run.trial_id.empty() ? model::JobState::kPreparing : model::JobState::kRunning;
  if (!job.ok() || job->state != expected) {
    run.phase = Run::Phase::kDone;  // cancelled (or deleted) while staging
    return;
  }
  run.extras = job->extras;
  const model::TrainingInput& input = *job->training_input;
  const JobLayout layout(options_.data_dir, run.project, run.job_id, run.trial_id);
  if (Status secured = SecureServerDirectories(layout); !secured.ok()) {
    BeginStop(run, model::JobState::kFailed, secured.message());
    return;
  }

  plan::PlanContext context;
  context.job_id = run.job_id;
  context.python = PythonFor(input);
  if (!input.package_uris.empty()) {
    context.pythonpath = layout.packages_dir();
  }
  if (!options_.runtime_pythonpath.empty()) {
    context.pythonpath += (context.pythonpath.empty() ? "" : ":") + options_.runtime_pythonpath;
  }
  if (!run.trial_id.empty()) {
    context.trial_id = run.trial_id;
    context.hp_metric_dir = layout.metrics_dir();
    for (const auto& [name, value] : run.hyperparameters) {
      context.trial_args.push_back(fmt::format("--{}={}", name, value));
    }
  }
  context.gcs_mount = options_.gcs_mount;
  context.runtime_modules = options_.runtime_pythonpath;
  context.storage_emulator_host = options_.storage_emulator_host;
  context.project = run.project;
  if (options_.job_token) {
    context.access_token = options_.job_token(run.project, run.job_id);
    if (Status written = WriteFileAtomically(layout.token_file(), context.access_token,
                                             /*private_to_group=*/true);
        written.ok()) {
      context.access_token_file = layout.token_file();
    }
  }
  context.containers_on_host = options_.containers_on_host;
  if (!run.trial_id.empty()) {
    std::error_code error;
    std::filesystem::create_directories(layout.metrics_dir(), error);
  }
  if (!input.job_dir.empty()) {
    Status job_dir = PrepareJobDir(input.job_dir);
    if (!job_dir.ok()) {
      BeginStop(run, model::JobState::kFailed, job_dir.message());
      return;
    }
  }
  backend_->Start(run, *job, std::move(context));
}

void Executor::MarkStarted(Run& run) {
  Say(run, false,
      fmt::format("Started {} replica{}.", run.replicas.size(),
                  run.replicas.size() == 1 ? "" : "s"));
  if (!run.trial_id.empty()) {
    return;
  }
  const WallTime now = Now();
  Result<model::Job> running = Transition(run.project, run.job_id, [&](model::Job& current) {
    if (current.state != model::JobState::kPreparing) {
      return false;
    }
    current.state = model::JobState::kRunning;
    if (!current.start_time) {
      current.start_time = now;
    }
    return true;
  });
  if (!running.ok() || running->state != model::JobState::kRunning) {
    // Cancelled between the check above and now: the cancel already wrote CANCELLED.
    BeginStop(run, model::JobState::kCancelled, std::string(CancelledMessage()));
    run.write_outcome = false;
  }
}

std::string Executor::PythonFor(const model::TrainingInput& input) const {
  const auto python = options_.python_by_version.find(input.python_version);
  return python == options_.python_by_version.end() ? options_.python : python->second;
}

Status Executor::PrepareJobDir(const std::string& job_dir) {
  return MakeJobDir(job_dir, options_.gcs_mount);
}

void Executor::SaveRecord(const Run& run) {
  RunRecord record;
  for (std::size_t i = 0; i < run.replicas.size(); ++i) {
    const Run::Replica& replica = run.replicas[i];
    const sched::ReplicaAssignment& assignment = run.allocation.replicas[i];
    record.replicas.push_back(
        {.task_name = replica.shape.task_name,
         .pid = replica.pid,
         .restarts = replica.restarts,
         .seconds = replica.seconds,
         .started = replica.pid > 0 ? std::optional(replica.started_wall) : std::nullopt,
         .spec = replica.spec,
         .node = assignment.node,
         .device_indices = assignment.device_indices,
         .cpus = assignment.cpus,
         .memory_mib = assignment.memory_mib});
  }
  record.restarts = run.restarts;
  backend_->Record(run, record);
  const JobLayout layout(options_.data_dir, run.project, run.job_id, run.trial_id);
  // Failing it costs only adoption: a server restarted meanwhile ends the job rather than risk
  // running its replicas twice. It is said, and written again at the run's next change.
  if (Status written = WriteRunRecord(layout.run_record(), record); !written.ok()) {
    Warn(
        fmt::format("The run record of {} was not written; a restarted server could not adopt "
                    "its replicas: {}",
                    run.key, written.message()));
  }
}

void Executor::Say(const Run& run, bool error, std::string_view message) {
  SayTo(run.project, run.job_id, run.trial_id, error, message);
}

void Executor::SayTo(const std::string& project, const std::string& job_id,
                     const std::string& trial_id, bool error, std::string_view message) {
  AppendServiceMessage(JobLayout(options_.data_dir, project, job_id, trial_id).service_log(),
                       clock_, error, message);
}

void Executor::BeginStop(Run& run, model::JobState outcome, std::string message) {
  if (run.Stopping() || run.Done()) {
    return;
  }
  run.phase = Run::Phase::kStopping;
  run.outcome = outcome;
  run.message = std::move(message);
  run.stop_started = clock_.Monotonic();
  run.job_restart.reset();
  for (Run::Replica& replica : run.replicas) {
    replica.restart_at.reset();
  }
  backend_->Stop(run);
  FinishIfStopped(run);
}

bool Executor::FinishIfStopped(Run& run) {
  if (run.Done()) {
    return true;
  }
  if (std::any_of(run.replicas.begin(), run.replicas.end(),
                  [](const Run::Replica& replica) { return replica.alive; })) {
    return false;
  }
  // What a replica left behind in its process group goes too (once: a group id may be reused).
  const bool retrying = run.phase == Run::Phase::kFinishing;
  run.phase = Run::Phase::kFinishing;
  if (!retrying) {
    backend_->KillLeftovers(run);
  }
  double ml_units = 0;
  for (const Run::Replica& replica : run.replicas) {
    const catalog::MachineType* machine = catalog_.FindMachineType(replica.shape.machine_type);
    ml_units += replica.seconds / 3600.0 * (machine ? machine->vcpus : 4) / 4.0;
  }
  if (run.write_outcome && !run.trial_id.empty()) {
    FinishTrial(run, ml_units);
  } else if (run.write_outcome && run.outcome == model::JobState::kQueued) {
    Requeue(run, ml_units);
  } else if (run.write_outcome) {
    if (!retrying) {
      Say(run, run.outcome == model::JobState::kFailed, OutcomeMessage(run.outcome, run.message));
    }
    const WallTime end = EndOf(run);
    const Result<model::Job> written =
        Transition(run.project, run.job_id, [&](model::Job& current) {
          if (model::IsTerminal(current.state)) {
            return false;
          }
          current.state = run.outcome;
          current.error_message = run.message;
          current.job_position = 0;
          if (!current.start_time) {
            current.start_time = end;
          }
          current.end_time = std::max(end, *current.start_time);
          if (!current.training_output) {
            current.training_output.emplace();
          }
          current.training_output->consumed_ml_units = std::round(ml_units * 100) / 100;
          return true;
        });
    if (!written.ok() && (written.status().code() == Code::kResourceExhausted ||
                          written.status().code() == Code::kUnavailable)) {
      return false;  // a full disk or a busy store: the next pass writes it
    }
  }
  run.phase = Run::Phase::kDone;
  return true;
}

WallTime Executor::EndOf(const Run& run) const {
  const WallTime now = Now();
  std::optional<WallTime> end;
  for (const Run::Replica& replica : run.replicas) {
    if (replica.ended_wall && (!end || *replica.ended_wall > *end)) {
      end = replica.ended_wall;
    }
  }
  if (!end) {
    return now;
  }
  // Whole microseconds, as every time the executor writes (Now()).
  const WallTime floored = std::chrono::floor<std::chrono::microseconds>(*end);
  return std::min(floored, now);
}

void Executor::CheckRun(Run& run) {
  if (run.Done()) {
    return;
  }
  const MonoTime now = clock_.Monotonic();
  if (run.Stopping()) {
    backend_->Observe(run);
    if (!run.Done() && !run.killed && now - run.stop_started >= options_.stop_grace) {
      run.killed = true;
      backend_->Kill(run);
    }
    FinishIfStopped(run);
    return;
  }
  Result<model::Job> stored = store_.Get(run.project, run.job_id);
  if (!stored.ok() && stored.status().code() != Code::kNotFound) {
    Warn(fmt::format("The job {}/{} could not be read; the next pass tries again: {}", run.project,
                     run.job_id, stored.status().message()));
    return;
  }
  std::optional<model::Job> job = stored.ok() ? std::optional(std::move(*stored)) : std::nullopt;
  const Study* study = run.trial_id.empty() ? nullptr : StudyOf(run);
  const RunDecision decision =
      DecideRun(job,
                {.staging = run.phase == Run::Phase::kStaging,
                 .trial = !run.trial_id.empty(),
                 .study_ending = study == nullptr || study->end.has_value()},
                Now());
  switch (decision.step) {
    case RunDecision::Step::kDropStaging:
      DropStaging(run);
      return;
    case RunDecision::Step::kSuspend:  // a staging one: nothing started, back to the queue at once
      Suspend(run, "The job was suspended: its replicas are stopped, and it waits in the queue.");
      return;
    case RunDecision::Step::kCancelForWait:
      if (EndPreparing(run.project, run.job_id, decision.outcome, decision.message)) {
        DropStaging(run);
      }  // else the next pass decides (and writes) again
      return;
    case RunDecision::Step::kStop:
      if (decision.mark_cancelling) {
        MarkCancelling(run.project, run.job_id);
      }
      BeginStop(run, decision.outcome, decision.message);
      run.write_outcome = decision.write_outcome;
      return;
    case RunDecision::Step::kContinue:
      break;
  }
  if (run.phase == Run::Phase::kStaging) {
    if (run.staged && job) {  // its report came while the job could not be read
      ProceedStaged(run, std::move(*job));
    }
    return;
  }
  if (study != nullptr && now >= run.next_metrics_read) {
    run.next_metrics_read = now + std::chrono::seconds(1);
    ReadTrialMetrics(run, study);
    if (ShouldStopTrial(run)) {
      run.stopped_early = true;
      BeginStop(run, model::JobState::kSucceeded, "");
      return;
    }
  }
  backend_->Observe(run);
  if (!run.Done()) {
    CheckRestarts(run);
  }
}

}  // namespace trainyard::control
