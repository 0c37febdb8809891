// The executor with a cluster workload manager (ExecutorOptions::cluster; Slurm): a job, or a
// tuning trial, becomes one manager job whose tasks are its replicas. The manager places and
// starts it; each task runs `trainyard batch-task` (agent/node_agent.h), which starts the
// replica under its supervisor with the same environment the local backend gives and records its
// output in the job's log files and its end in its exit file, on the file system every node shares.
// Here: submit, follow the manager's state and the tasks' exit files, cancel, take over after a
// restart. The exit policy is the local one (control/reconcile/replica_policy.h); restarts of
// crashed replicas happen inside the allocation.
#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>

#include <fmt/format.h>

#include "base/file.h"
#include "control/batch_launch.h"
#include "control/executor.h"
#include "control/executor_run.h"
#include "control/job_layout.h"
#include "logs/log_reader.h"
#include "plan/cluster_plan.h"
#include "run/local/supervisor_command.h"

namespace trainyard::control {
namespace {

// How long exit files are awaited once the manager says its job ended (a shared file system may
// show them late).
constexpr std::chrono::seconds kExitFileGrace{3};
// A cancel the manager has not acted on is sent again after this long.
constexpr std::chrono::seconds kCancelRetry{30};

std::string ReadFileTail(const std::string& path, std::size_t max_bytes) {
  const std::string all = ReadFileText(path).value_or("");
  return all.size() <= max_bytes ? all : all.substr(all.size() - max_bytes);
}

std::string ManagerJobName(const std::string& project, const std::string& job_id,
                           const std::string& trial_id) {
  return fmt::format("ty-{}-{}{}", project, job_id, trial_id.empty() ? "" : "-trial-" + trial_id);
}

}  // namespace

int Executor::PickBatchPorts(int count) {
  const int range = std::max(options_.cluster_port_count, count);
  if (next_batch_port_ < 0) {
    // Start somewhere in the range that depends on the time, so that a restarted server (or a
    // second one) does not hand out the ports of the jobs the first one still runs.
    next_batch_port_ = static_cast<int>(
        std::chrono::duration_cast<std::chrono::seconds>(Now().time_since_epoch()).count() % range);
  }
  for (int attempt = 0; attempt < range; ++attempt) {
    if (next_batch_port_ + count > range) {
      next_batch_port_ = 0;
    }
    const int first = options_.cluster_first_port + next_batch_port_;
    const bool taken = std::any_of(runs_.begin(), runs_.end(), [&](const auto& entry) {
      const Run& other = *entry.second;
      const int other_count = static_cast<int>(other.replicas.size()) + 1;
      return other.batch && other.batch->first_port < first + count &&
             first < other.batch->first_port + other_count;
    });
    if (!taken) {
      next_batch_port_ += count;
      return first;
    }
    next_batch_port_ += 1;
  }
  // Every port is in use by some running job: share (the manager's nodes may still differ).
  return options_.cluster_first_port;
}

void Executor::LaunchBatch(Run& run, const model::Job& job, plan::PlanContext context) {
  const JobLayout layout(options_.data_dir, run.project, run.job_id, run.trial_id);
  const int count = static_cast<int>(run.replicas.size());
  const int first_port = PickBatchPorts(count + 1);

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
    BeginStop(run, model::JobState::kFailed, launches.status().message());
    return;
  }

  run::ClusterJobRequest request;
  for (const plan::ReplicaShape& shape : shapes) {
    Result<sched::ReplicaDemand> demand = sched::DemandOf(
        shape.task_name, shape.machine_type, shape.accelerator, shape.accelerator_count, catalog_);
    if (!demand.ok()) {
      BeginStop(run, model::JobState::kFailed, demand.status().message());
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
                     .node_addresses = options_.cluster_node_addresses,
                     .supervisor = options_.cluster_supervisor,
                     .restart = options_.restart};
  if (Status written = WriteBatchLaunch(layout.launch_file(), launch); !written.ok()) {
    BeginStop(run, model::JobState::kFailed, written.message());
    return;
  }
  request.name = ManagerJobName(run.project, run.job_id, run.trial_id);
  request.task_command = options_.cluster_task_command;
  request.task_command.insert(request.task_command.end(), {"--launch", layout.launch_file()});
  request.working_dir = layout.root();
  request.output_path = layout.batch_output();
  if (const std::optional<std::chrono::nanoseconds> limit = MaxRunningTime(job)) {
    request.time_limit = std::chrono::ceil<std::chrono::seconds>(*limit);
  }
  request.priority = job.training_input->scheduling ? job.training_input->scheduling->priority : 0;

  for (std::size_t i = 0; i < run.replicas.size(); ++i) {
    Run::Replica& replica = run.replicas[i];
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
  Result<std::string> id = options_.cluster->Submit(request);
  if (!id.ok()) {
    BeginStop(run, model::JobState::kFailed,
              fmt::format("{} did not accept the job: {}", options_.cluster->Name(),
                          id.status().message()));
    return;
  }
  run.batch = Run::Batch{.id = *id, .first_port = first_port};
  run.phase = Run::Phase::kRunning;
  const MonoTime now = clock_.Monotonic();
  for (Run::Replica& replica : run.replicas) {
    replica.alive = true;
    replica.started = now;
    replica.started_wall = Now();
  }
  SaveRecord(run);
  Say(run, false,
      fmt::format("Submitted to {} as job {}: {} replica{} in {} component{}.",
                  options_.cluster->Name(), *id, count, count == 1 ? "" : "s",
                  request.components.size(), request.components.size() == 1 ? "" : "s"));
  next_batch_poll_ = {};  // ask the manager about it on the next pass
}

void Executor::PollBatch() {
  if (options_.cluster == nullptr) {
    return;
  }
  const MonoTime now = clock_.Monotonic();
  if (now < next_batch_poll_) {
    return;
  }
  std::vector<std::string> ids;
  for (const auto& [key, run] : runs_) {
    if (run->batch) {
      ids.push_back(run->batch->id);
    }
  }
  if (ids.empty()) {
    return;
  }
  next_batch_poll_ = now + options_.cluster_poll;
  Result<std::map<std::string, run::ClusterJobState>> states = options_.cluster->Query(ids);
  if (states.ok()) {  // else: the manager is unreachable now; the last states stand
    batch_states_ = std::move(*states);
  }
}

void Executor::CancelBatch(Run& run) {
  if (!run.batch || run.batch->cancel_sent ||
      std::none_of(run.replicas.begin(), run.replicas.end(),
                   [](const Run::Replica& replica) { return replica.alive; })) {
    return;
  }
  run.batch->cancel_sent = true;
  run.batch->cancelled_at = clock_.Monotonic();
  if (Status cancelled = options_.cluster->Cancel(run.batch->id); !cancelled.ok()) {
    Say(run, true,
        fmt::format("Could not cancel {} job {}: {}", options_.cluster->Name(), run.batch->id,
                    cancelled.message()));
  }
}

void Executor::CheckBatch(Run& run) {
  Run::Batch& batch = *run.batch;
  // The tasks' exit files: a replica's end, as its task recorded it.
  for (std::size_t i = 0; i < run.replicas.size() && !run.done; ++i) {
    Run::Replica& replica = run.replicas[i];
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
    if (run.phase != Run::Phase::kStopping && status->signaled &&
        std::find(run::local::kStopSignals.begin(), run::local::kStopSignals.end(),
                  status->signal) != run::local::kStopSignals.end()) {
      continue;
    }
    const JobLayout layout(options_.data_dir, run.project, run.job_id, run.trial_id);
    if (Result<TaskStarted> task = DecodeTaskStarted(
            ReadFileText(layout.started_path(replica.shape.task_name)).value_or(""));
        task.ok()) {
      replica.restarts = task->restarts;
    }
    HandleExit(run, i, *status);
  }
  const auto found = batch_states_.find(batch.id);
  if (found == batch_states_.end() || run.done) {
    return;  // not asked yet
  }
  const run::ClusterJobState& state = found->second;
  const MonoTime now = clock_.Monotonic();
  switch (state.phase) {
    case run::ClusterJobState::Phase::kPending:
      if (run.phase == Run::Phase::kRunning && state.reason != batch.reason) {
        batch.reason = state.reason;
        Say(run, false,
            fmt::format("{} job {} is {} ({}).", options_.cluster->Name(), batch.id, state.state,
                        state.reason.empty() ? "no reason given" : state.reason));
      }
      return;
    case run::ClusterJobState::Phase::kRunning:
      if (!batch.running) {
        batch.running = true;
        for (Run::Replica& replica : run.replicas) {
          replica.started = now;
          replica.started_wall = Now();
        }
        if (run.phase == Run::Phase::kRunning) {
          MarkStarted(run);
        }
      }
      if (batch.cancel_sent && now - batch.cancelled_at >= kCancelRetry) {
        batch.cancel_sent = false;  // the manager has not acted on it: ask again
        CancelBatch(run);
      }
      return;
    case run::ClusterJobState::Phase::kFinished:
    case run::ClusterJobState::Phase::kUnknown:
      break;
  }
  if (std::none_of(run.replicas.begin(), run.replicas.end(),
                   [](const Run::Replica& replica) { return replica.alive; })) {
    return;
  }
  if (!batch.finished_seen) {
    batch.finished_seen = now;
  }
  if (now - *batch.finished_seen < kExitFileGrace) {
    return;
  }
  EndBatchWithoutReplicas(run, state);
}

// The manager's job ended while replicas had not recorded their end (killed with their task, or
// never started): they are gone, and unless trainyard was stopping the job, the manager's state
// says how it ended.
void Executor::EndBatchWithoutReplicas(Run& run, const run::ClusterJobState& state) {
  const Run::Batch& batch = *run.batch;
  std::vector<std::string> missing;
  for (Run::Replica& replica : run.replicas) {
    if (!replica.alive) {
      continue;
    }
    missing.push_back(replica.shape.task_name);
    replica.alive = false;
    replica.last_exit = ExitStatus{.signaled = true, .signal = SIGKILL};
    replica.ended_wall = Now();  // when it ended is unknown: when the manager said so
    if (batch.running) {
      replica.seconds +=
          std::chrono::duration<double>(clock_.Monotonic() - replica.started).count();
    }
  }
  if (run.phase != Run::Phase::kStopping) {
    const std::string manager = options_.cluster->Name();
    const JobLayout layout(options_.data_dir, run.project, run.job_id, run.trial_id);
    Result<model::Job> job = store_.Get(run.project, run.job_id);
    if (state.state == "TIMEOUT" && job.ok() && MaxRunningTime(*job)) {
      MarkCancelling(run.project, run.job_id);
      BeginStop(run, model::JobState::kCancelled, std::string(MaxRunningTimeMessage()));
    } else if (state.state == "CANCELLED") {
      BeginStop(run, model::JobState::kCancelled,
                fmt::format("The {} job {} was cancelled outside trainyard.", manager, batch.id));
    } else {
      std::string message =
          state.phase == run::ClusterJobState::Phase::kUnknown
              ? fmt::format("{} no longer knows job {}", manager, batch.id)
              : fmt::format("The {} job {} ended {}{}", manager, batch.id, state.state,
                            state.reason.empty() || state.reason == "None"
                                ? std::string()
                                : " (" + state.reason + ")");
      message += fmt::format(" before its replica{} {} ended.", missing.size() == 1 ? "" : "s",
                             fmt::join(missing, ", "));
      BeginStop(run, model::JobState::kFailed,
                WithStderrTail(std::move(message), ReadFileTail(layout.batch_output(), 4000)));
    }
  }
  FinishIfStopped(run);
}

bool Executor::AdoptBatch(Run& run, const model::Job& job, const RunRecord& record,
                          std::vector<plan::ReplicaShape> shapes) {
  if (options_.cluster == nullptr || shapes.size() != record.replicas.size()) {
    return false;  // the server now runs without the manager it was submitted to
  }
  const MonoTime mono_now = clock_.Monotonic();
  const WallTime now = Now();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const RunRecord::Replica& recorded = record.replicas[i];
    if (shapes[i].task_name != recorded.task_name) {
      return false;
    }
    run.allocation.replicas.push_back({.task_name = recorded.task_name,
                                       .cpus = recorded.cpus,
                                       .memory_mib = recorded.memory_mib});
    Run::Replica replica{.shape = std::move(shapes[i]), .spec = recorded.spec};
    replica.alive = true;  // until its exit file or the manager says otherwise
    replica.restarts = recorded.restarts;
    replica.seconds = recorded.seconds;
    replica.started_wall = recorded.started.value_or(now);
    replica.started = mono_now - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::max(now - replica.started_wall, WallTime::duration(0)));
    run.replicas.push_back(std::move(replica));
  }
  run.batch = Run::Batch{.id = record.batch_id,
                         .first_port = record.first_port,
                         .running = job.state == model::JobState::kRunning};
  next_batch_poll_ = {};
  Say(run, false,
      fmt::format("The trainyard server restarted; it took over {} job {}.",
                  options_.cluster->Name(), record.batch_id));
  if (job.state == model::JobState::kCancelling) {
    BeginStop(run, model::JobState::kCancelled, std::string(CancelledMessage()));
  }
  return true;
}

}  // namespace trainyard::control
