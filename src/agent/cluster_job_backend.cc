#include "agent/cluster_job_backend.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>

#include <fmt/format.h>

#include "agent/batch_launch.h"
#include "control/job_layout.h"
#include "control/job_run.h"
#include "control/reconcile/job_limits.h"
#include "control/reconcile/manager_end.h"
#include "control/run_record.h"
#include "os/file.h"
#include "plan/cluster_plan.h"
#include "run/exit_file.h"
#include "run/local/supervisor_command.h"
#include "sched/placement.h"

namespace trainyard::agent {

using control::JobLayout;
using control::JobRun;
using control::RunRecord;

namespace {

// How long exit files are awaited once the manager says its job ended (a shared file system may
// show them late).
constexpr std::chrono::seconds kExitFileGrace{3};
// A cancel the manager has not acted on is sent again after this long.
constexpr std::chrono::seconds kCancelRetry{30};

std::string ReadFileTail(const std::string& path, std::size_t max_bytes) {
  const std::string all = os::ReadFileText(path).value_or("");
  return all.size() <= max_bytes ? all : all.substr(all.size() - max_bytes);
}

std::string ManagerJobName(const std::string& project, const std::string& job_id,
                           const std::string& trial_id) {
  return fmt::format("ty-{}-{}{}", project, job_id, trial_id.empty() ? "" : "-trial-" + trial_id);
}

}  // namespace

ClusterJobBackend::ClusterJobBackend(run::ClusterBackend& manager, const catalog::Catalog& catalog,
                                     const Clock& clock, ClusterJobOptions options,
                                     control::Backend* earlier_local)
    : manager_(manager),
      catalog_(catalog),
      clock_(clock),
      options_(std::move(options)),
      earlier_local_(earlier_local) {}

int ClusterJobBackend::PickPorts(int count) {
  const int range = std::max(options_.port_count, count);
  if (next_port_ < 0) {
    // Start somewhere in the range that depends on the time, so that a restarted server (or a
    // second one) does not hand out the ports of the jobs the first one still runs.
    next_port_ = static_cast<int>(
        std::chrono::duration_cast<std::chrono::seconds>(host_->Now().time_since_epoch()).count() %
        range);
  }
  for (int attempt = 0; attempt < range; ++attempt) {
    if (next_port_ + count > range) {
      next_port_ = 0;
    }
    const int first = options_.first_port + next_port_;
    const bool taken = std::any_of(batches_.begin(), batches_.end(), [&](const auto& entry) {
      const Batch& other = entry.second;
      return other.first_port < first + count && first < other.first_port + other.ports;
    });
    if (!taken) {
      next_port_ += count;
      return first;
    }
    next_port_ += 1;
  }
  // Every port is in use by some running job: share (the manager's nodes may still differ).
  return options_.first_port;
}

void ClusterJobBackend::Start(JobRun& run, const model::Job& job, plan::PlanContext context) {
  const JobLayout layout(options_.data_dir, run.project, run.job_id, run.trial_id);
  const int count = static_cast<int>(run.replicas.size());
  const int first_port = PickPorts(count + 1);

  // The plan's own checks (a container without a command, a bad job dir, …) fail the job here,
  // before the manager sees it; the tasks build the same plan with the real addresses.
  std::vector<plan::ReplicaShape> shapes;
  std::vector<plan::ReplicaPlacement> placements;
  for (int i = 0; i < count; ++i) {
    shapes.push_back(run.replicas[static_cast<std::size_t>(i)].shape);
    placements.push_back({.port = first_port + i});
  }
  plan::PlanContext checked = context;
  checked.pytorch_master_port = first_port + count;
  Result<std::vector<plan::ReplicaLaunch>> launches =
      plan::BuildClusterPlan(job, shapes, placements, checked, catalog_);
  if (!launches.ok()) {
    host_->BeginStop(run, model::JobState::kFailed, launches.status().message());
    return;
  }

  run::ClusterJobRequest request;
  for (const plan::ReplicaShape& shape : shapes) {
    Result<sched::ReplicaDemand> demand = sched::DemandOf(
        shape.task_name, shape.machine_type, shape.accelerator, shape.accelerator_count, catalog_);
    if (!demand.ok()) {
      host_->BeginStop(run, model::JobState::kFailed, demand.status().message());
      return;
    }
    const std::string role(plan::RoleName(shape.role));
    if (request.components.empty() || request.components.back().role != role) {
      request.components.push_back({.role = role,
                                    .tasks = 0,
                                    .cpus_per_task = std::max(1, demand->cpus),
                                    .memory_mib = demand->memory_mib,
                                    .accelerator = demand->accelerator,
                                    .accelerator_count = demand->accelerator_count});
    }
    ++request.components.back().tasks;
  }
  BatchLaunch launch{.job = job,
                     .project = run.project,
                     .trial_id = run.trial_id,
                     .data_dir = options_.data_dir,
                     .context = std::move(context),
                     .first_port = first_port,
                     .node_addresses = options_.node_addresses,
                     .supervisor = options_.supervisor,
                     .restart = options_.restart};
  if (Status written = agent::WriteBatchLaunch(layout.launch_file(), launch); !written.ok()) {
    host_->BeginStop(run, model::JobState::kFailed, written.message());
    return;
  }
  request.name = ManagerJobName(run.project, run.job_id, run.trial_id);
  request.task_command = options_.task_command;
  request.task_command.insert(request.task_command.end(), {"--launch", layout.launch_file()});
  request.working_dir = layout.root();
  request.output_path = layout.batch_output();
  if (const std::optional<std::chrono::nanoseconds> limit = control::MaxRunningTime(job)) {
    request.time_limit = std::chrono::ceil<std::chrono::seconds>(*limit);
  }
  request.priority = job.training_input->scheduling ? job.training_input->scheduling->priority : 0;

  for (std::size_t i = 0; i < run.replicas.size(); ++i) {
    JobRun::Replica& replica = run.replicas[i];
    const std::string& task = replica.shape.task_name;
    replica.spec = {.argv = std::move((*launches)[i].argv),
                    .env = {},
                    .working_dir = layout.working_dir(task),
                    .log_path = layout.log_path(task),
                    .exit_path = layout.exit_path(task)};
    std::error_code ignored;
    std::filesystem::remove(replica.spec.exit_path, ignored);
    std::filesystem::remove(layout.started_path(task), ignored);
  }
  Result<std::string> id = manager_.Submit(request);
  if (!id.ok()) {
    host_->BeginStop(
        run, model::JobState::kFailed,
        fmt::format("{} did not accept the job: {}", manager_.Name(), id.status().message()));
    return;
  }
  batches_[run.key] = Batch{.id = *id, .first_port = first_port, .ports = count + 1};
  run.phase = JobRun::Phase::kRunning;
  const MonoTime now = clock_.Monotonic();
  for (JobRun::Replica& replica : run.replicas) {
    replica.alive = true;
    replica.started = now;
    replica.started_wall = host_->Now();
  }
  host_->SaveRecord(run);
  host_->Say(run, false,
             fmt::format("Submitted to {} as job {}: {} replica{} in {} component{}.",
                         manager_.Name(), *id, count, count == 1 ? "" : "s",
                         request.components.size(), request.components.size() == 1 ? "" : "s"));
  next_poll_ = {};  // ask the manager about it on the next pass
}

void ClusterJobBackend::Poll() {
  const MonoTime now = clock_.Monotonic();
  if (now < next_poll_) {
    return;
  }
  std::vector<std::string> ids;
  for (const auto& [key, batch] : batches_) {
    ids.push_back(batch.id);
  }
  if (ids.empty()) {
    return;
  }
  next_poll_ = now + options_.poll;
  Result<std::map<std::string, run::ClusterJobState>> states = manager_.Query(ids);
  if (states.ok()) {  // else: the manager is unreachable now; the last states stand
    states_ = std::move(*states);
  }
}

void ClusterJobBackend::Cancel(JobRun& run) {
  const auto found = batches_.find(run.key);
  if (found == batches_.end() || found->second.cancel_sent ||
      std::none_of(run.replicas.begin(), run.replicas.end(),
                   [](const JobRun::Replica& replica) { return replica.alive; })) {
    return;
  }
  Batch& batch = found->second;
  batch.cancel_sent = true;
  batch.cancelled_at = clock_.Monotonic();
  if (Status cancelled = manager_.Cancel(batch.id); !cancelled.ok()) {
    host_->Say(run, true,
               fmt::format("Could not cancel {} job {}: {}", manager_.Name(), batch.id,
                           cancelled.message()));
  }
}

void ClusterJobBackend::Observe(JobRun& run) {
  const auto known = batches_.find(run.key);
  if (known == batches_.end()) {
    return;  // not submitted
  }
  Batch& batch = known->second;
  // The tasks' exit files: a replica's end, as its task recorded it.
  for (std::size_t i = 0; i < run.replicas.size() && !run.Done(); ++i) {
    JobRun::Replica& replica = run.replicas[i];
    if (!replica.alive) {
      continue;
    }
    const std::optional<ExitStatus> status = run::ReadExitStatus(replica.spec.exit_path);
    if (!status) {
      continue;
    }
    // Slurm's own stop (scancel outside trainyard, the time limit, preemption) reaches the
    // replicas before its state changes: such an end is the manager's to explain, once it says
    // how its job ended (EndBatchWithoutReplicas).
    if (!run.Stopping() && status->signaled &&
        std::find(run::local::kStopSignals.begin(), run::local::kStopSignals.end(),
                  status->signal) != run::local::kStopSignals.end()) {
      continue;
    }
    const JobLayout layout(options_.data_dir, run.project, run.job_id, run.trial_id);
    if (Result<TaskStarted> task = DecodeTaskStarted(
            os::ReadFileText(layout.started_path(replica.shape.task_name)).value_or(""));
        task.ok()) {
      replica.restarts = task->restarts;
    }
    host_->HandleExit(run, i, *status);
  }
  const auto found = states_.find(batch.id);
  if (found == states_.end() || run.Done()) {
    return;  // not asked yet
  }
  const run::ClusterJobState& state = found->second;
  const MonoTime now = clock_.Monotonic();
  switch (state.phase) {
    case run::ClusterJobState::Phase::kPending:
      if (run.phase == JobRun::Phase::kRunning && state.reason != batch.reason) {
        batch.reason = state.reason;
        host_->Say(run, false,
                   fmt::format("{} job {} is {} ({}).", manager_.Name(), batch.id, state.state,
                               state.reason.empty() ? "no reason given" : state.reason));
      }
      return;
    case run::ClusterJobState::Phase::kRunning:
      if (!batch.running) {
        batch.running = true;
        for (JobRun::Replica& replica : run.replicas) {
          replica.started = now;
          replica.started_wall = host_->Now();
        }
        if (run.phase == JobRun::Phase::kRunning) {
          host_->MarkStarted(run);
        }
      }
      if (batch.cancel_sent && now - batch.cancelled_at >= kCancelRetry) {
        batch.cancel_sent = false;  // the manager has not acted on it: ask again
        Cancel(run);
      }
      return;
    case run::ClusterJobState::Phase::kFinished:
    case run::ClusterJobState::Phase::kUnknown:
      break;
  }
  if (std::none_of(run.replicas.begin(), run.replicas.end(),
                   [](const JobRun::Replica& replica) { return replica.alive; })) {
    return;
  }
  if (!batch.finished_seen) {
    batch.finished_seen = now;
  }
  if (now - *batch.finished_seen < kExitFileGrace) {
    return;
  }
  EndWithoutReplicas(run, batch, state);
}

// The manager's job ended while replicas had not recorded their end (killed with their task, or
// never started): they are gone, and unless trainyard was stopping the job, the manager's state
// says how it ended.
void ClusterJobBackend::EndWithoutReplicas(JobRun& run, Batch& batch,
                                           const run::ClusterJobState& state) {
  std::vector<std::string> missing;
  for (JobRun::Replica& replica : run.replicas) {
    if (!replica.alive) {
      continue;
    }
    missing.push_back(replica.shape.task_name);
    replica.alive = false;
    replica.last_exit = ExitStatus{.signaled = true, .signal = SIGKILL};
    replica.ended_wall = host_->Now();  // when it ended is unknown: when the manager said so
    if (batch.running) {
      replica.seconds +=
          std::chrono::duration<double>(clock_.Monotonic() - replica.started).count();
    }
  }
  if (!run.Stopping()) {
    Result<model::Job> job = host_->StoredJob(run.project, run.job_id);
    const control::ManagerEndOutcome outcome = control::DecideManagerEnd(
        {.manager = manager_.Name(),
         .batch_id = batch.id,
         .known = state.phase != run::ClusterJobState::Phase::kUnknown,
         .state = state.state,
         .reason = state.reason,
         .has_max_running_time = job.ok() && control::MaxRunningTime(*job).has_value(),
         .missing = std::move(missing)});
    std::string message = outcome.message;
    if (outcome.state == model::JobState::kFailed) {
      const JobLayout layout(options_.data_dir, run.project, run.job_id, run.trial_id);
      message =
          control::WithStderrTail(std::move(message), ReadFileTail(layout.batch_output(), 4000));
    }
    if (outcome.cancelling_first) {
      host_->MarkCancelling(run.project, run.job_id);
    }
    host_->BeginStop(run, outcome.state, std::move(message));
  }
  host_->FinishIfStopped(run);
}

bool ClusterJobBackend::Adopt(JobRun& run, const model::Job& job, const RunRecord& record,
                              std::vector<plan::ReplicaShape> shapes) {
  if (record.batch_id.empty() || shapes.size() != record.replicas.size()) {
    return false;  // not a manager's job: the server ran without one then
  }
  const MonoTime mono_now = clock_.Monotonic();
  const WallTime now = host_->Now();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const RunRecord::Replica& recorded = record.replicas[i];
    if (shapes[i].task_name != recorded.task_name) {
      return false;
    }
    run.allocation.replicas.push_back({.task_name = recorded.task_name,
                                       .cpus = recorded.cpus,
                                       .memory_mib = recorded.memory_mib});
    JobRun::Replica replica{.shape = std::move(shapes[i]), .spec = recorded.spec};
    replica.alive = true;  // until its exit file or the manager says otherwise
    replica.restarts = recorded.restarts;
    replica.seconds = recorded.seconds;
    replica.started_wall = recorded.started.value_or(now);
    replica.started = mono_now - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::max(now - replica.started_wall, WallTime::duration(0)));
    run.replicas.push_back(std::move(replica));
  }
  batches_[run.key] = Batch{.id = record.batch_id,
                            .first_port = record.first_port,
                            .ports = static_cast<int>(run.replicas.size()) + 1,
                            .running = job.state == model::JobState::kRunning};
  next_poll_ = {};
  host_->Say(run, false,
             fmt::format("The trainyard server restarted; it took over {} job {}.", manager_.Name(),
                         record.batch_id));
  if (job.state == model::JobState::kCancelling) {
    host_->BeginStop(run, model::JobState::kCancelled, std::string(control::CancelledMessage()));
  }
  return true;
}

Status ClusterJobBackend::StartReplica(JobRun& run, std::size_t replica) {
  return Status::FailedPrecondition(
      fmt::format("The replica {} of {} restarts inside its {} job, not from the server.",
                  run.replicas[replica].shape.task_name, run.key, manager_.Name()));
}

bool ClusterJobBackend::Pending(const JobRun& run) const {
  const auto found = batches_.find(run.key);
  return found != batches_.end() && !found->second.running;
}

void ClusterJobBackend::Record(const JobRun& run, RunRecord& record) const {
  // A task's start is the manager's: every replica counts from the submit (or its start).
  for (std::size_t i = 0; i < record.replicas.size() && i < run.replicas.size(); ++i) {
    record.replicas[i].started = run.replicas[i].started_wall;
  }
  if (const auto found = batches_.find(run.key); found != batches_.end()) {
    record.batch_id = found->second.id;
    record.first_port = found->second.first_port;
  }
}

void ClusterJobBackend::Forget(const JobRun& run) {
  batches_.erase(run.key);
}

bool ClusterJobBackend::Submitted(const RunRecord& record) const {
  return !record.batch_id.empty();
}

void ClusterJobBackend::KillRecorded(const RunRecord& record) {
  if (!record.batch_id.empty()) {
    (void)manager_.Cancel(record.batch_id);
  } else if (earlier_local_ != nullptr) {
    earlier_local_->KillRecorded(record);
  }
}

void ClusterJobBackend::KillUnrecorded(const model::Job& job, const JobLayout& layout) {
  if (earlier_local_ != nullptr) {
    earlier_local_->KillUnrecorded(job, layout);
  }
}

}  // namespace trainyard::agent
