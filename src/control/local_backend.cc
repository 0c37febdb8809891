#include "control/local_backend.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <utility>

#include <fmt/format.h>

#include "control/job_layout.h"
#include "control/job_run.h"
#include "control/reconcile/job_limits.h"
#include "control/replica_specs.h"
#include "control/run_record.h"
#include "run/exit_file.h"

namespace trainyard::control {

LocalBackend::LocalBackend(run::Launcher& launcher, const catalog::Catalog& catalog,
                           const Clock& clock, LocalBackendOptions options)
    : launcher_(launcher), catalog_(catalog), clock_(clock), options_(std::move(options)) {}

void LocalBackend::Start(JobRun& run, const model::Job& job, plan::PlanContext context) {
  const JobLayout layout(options_.data_dir, run.project, run.job_id, run.trial_id);
  // Every replica gets a port (CLUSTER_SPEC lists evaluators too), plus one for PyTorch.
  Result<std::vector<int>> ports = launcher_.FreePorts(static_cast<int>(run.replicas.size()) + 1);
  if (!ports.ok()) {
    host_->BeginStop(run, model::JobState::kFailed,
                     "Could not reserve ports for the replicas: " + ports.status().message());
    return;
  }
  std::vector<plan::ReplicaShape> shapes;
  std::vector<plan::ReplicaPlacement> placements;
  for (std::size_t i = 0; i < run.replicas.size(); ++i) {
    shapes.push_back(run.replicas[i].shape);
    plan::ReplicaPlacement placement;
    placement.port = (*ports)[i];
    const sched::ReplicaAssignment& assignment = run.allocation.replicas[i];
    placement.device_indices = assignment.device_indices;
    const sched::Node& node = options_.inventory.nodes[assignment.node];
    for (int index : assignment.device_indices) {
      for (const sched::Device& device : node.devices) {
        placement.emulated |= device.index == index && device.emulated;
      }
    }
    placements.push_back(std::move(placement));
  }

  context.pytorch_master_port = ports->back();
  Result<std::vector<Result<run::ProcessSpec>>> specs =
      BuildReplicaSpecs(job, shapes, placements, context,
                        ReplicaFiles{.data_dir = options_.data_dir,
                                     .project = run.project,
                                     .view = host_->ReplicaView(run, *job.training_input, layout)},
                        catalog_);
  if (!specs.ok()) {
    host_->BeginStop(run, model::JobState::kFailed, specs.status().message());
    return;
  }
  for (std::size_t i = 0; i < run.replicas.size(); ++i) {
    Result<run::ProcessSpec>& spec = (*specs)[i];
    if (!spec.ok()) {
      host_->BeginStop(run, model::JobState::kFailed, spec.status().message());
      return;
    }
    run.replicas[i].spec = std::move(*spec);
  }
  host_->Say(run, false, "Waiting for training program to start.");
  run.phase = JobRun::Phase::kRunning;
  for (std::size_t i = 0; i < run.replicas.size(); ++i) {
    Status started = StartReplica(run, i);
    if (!started.ok()) {
      host_->BeginStop(run, model::JobState::kFailed, started.message());
      return;
    }
  }
  host_->MarkStarted(run);
}

Status LocalBackend::StartReplica(JobRun& run, std::size_t index) {
  JobRun::Replica& replica = run.replicas[index];
  // Held until its pid is recorded (ProcessSpec::held): a server killed in between leaves a
  // replica that never ran, which the next one stops, rather than one that may have run to its
  // end unseen and would run again.
  run::ProcessSpec held = replica.spec;
  held.held = true;
  Result<int> pid = launcher_.Start(held);
  if (!pid.ok()) {
    return Status::FailedPrecondition(fmt::format("The replica {} {} could not be started: {}",
                                                  plan::RoleName(replica.shape.role),
                                                  replica.shape.index, pid.status().message()));
  }
  replica.pid = *pid;
  replica.alive = true;
  replica.restart_at.reset();
  replica.started = clock_.Monotonic();
  replica.started_wall = host_->Now();
  pid_to_run_[*pid] = run.key;
  host_->SaveRecord(run);
  launcher_.Release(*pid);
  return Status();
}

void LocalBackend::SignalAlive(const JobRun& run, int signal) {
  for (const JobRun::Replica& replica : run.replicas) {
    if (replica.alive && replica.pid > 0) {
      launcher_.SignalGroup(replica.pid, signal);
    }
  }
}

void LocalBackend::Stop(JobRun& run) {
  SignalAlive(run, SIGTERM);
}

void LocalBackend::Kill(JobRun& run) {
  SignalAlive(run, SIGKILL);
}

void LocalBackend::KillLeftovers(const JobRun& run) {
  for (const JobRun::Replica& replica : run.replicas) {
    if (replica.pid > 0) {
      launcher_.SignalGroup(replica.pid, SIGKILL);
    }
  }
}

bool LocalBackend::Adopt(JobRun& run, const model::Job& job, const RunRecord& record,
                         std::vector<plan::ReplicaShape> shapes) {
  if (!record.batch_id.empty()) {
    return false;  // a cluster manager's job: this server runs without it now
  }
  const MonoTime mono_now = clock_.Monotonic();
  const WallTime now = host_->Now();
  std::vector<std::pair<int, ExitStatus>> ended;
  int adopted = 0;
  for (std::size_t i = 0; i < record.replicas.size(); ++i) {
    const RunRecord::Replica& recorded = record.replicas[i];
    plan::ReplicaShape& shape = shapes[i];
    if (shape.task_name != recorded.task_name || recorded.node >= options_.inventory.nodes.size()) {
      return false;  // not this job's shape, or not this machine's inventory
    }
    run.allocation.replicas.push_back({.task_name = recorded.task_name,
                                       .node = recorded.node,
                                       .device_indices = recorded.device_indices,
                                       .cpus = recorded.cpus,
                                       .memory_mib = recorded.memory_mib});
    JobRun::Replica replica{.shape = std::move(shape), .spec = recorded.spec};
    replica.pid = recorded.pid;
    replica.restarts = recorded.restarts;
    replica.seconds = recorded.seconds;
    replica.started_wall = recorded.started.value_or(now);
    replica.started = mono_now - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::max(now - replica.started_wall, WallTime::duration(0)));
    if (recorded.pid > 0) {
      Result<bool> alive = launcher_.Adopt(recorded.pid, recorded.spec);
      if (alive.ok() && !*alive) {
        // Restarted, by a server that died before it recorded the new pid?
        Result<int> restarted = launcher_.FindStarted(recorded.spec);
        if (!restarted.ok()) {
          alive = restarted.status();  // a restart may run: unknown, as below
        } else if (*restarted > 0) {
          replica.pid = *restarted;
          alive = launcher_.Adopt(*restarted, recorded.spec);
        }
      }
      if (!alive.ok()) {
        return false;  // cannot tell whether it runs: restarting it might duplicate it
      }
      replica.alive = true;  // until its exit, real or recorded, is handled
      if (*alive) {
        launcher_.Release(replica.pid);  // recorded: held (a server died before releasing it)?
        ++adopted;
      } else {
        // Ended while no server watched it: handle its exit now, as the supervisor recorded
        // it (none: the supervisor itself was SIGKILLed with its process group).
        ended.emplace_back(replica.pid,
                           run::ReadExitStatus(recorded.spec.exit_path)
                               .value_or(ExitStatus{.signaled = true, .signal = SIGKILL}));
      }
    }
    run.replicas.push_back(std::move(replica));
  }
  for (const JobRun::Replica& replica : run.replicas) {
    if (replica.alive) {
      pid_to_run_[replica.pid] = run.key;
    }
  }
  if (job.state == model::JobState::kCancelling) {
    host_->BeginStop(run, model::JobState::kCancelled, std::string(CancelledMessage()));
  }
  host_->Say(run, false,
             fmt::format("The trainyard server restarted; it took over {} running replica{} of {}.",
                         adopted, adopted == 1 ? "" : "s", run.replicas.size()));
  for (auto& [pid, status] : ended) {
    host_->ReportExit(pid, status);
  }
  return true;
}

void LocalBackend::Exited(int pid, const ExitStatus& status) {
  auto found = pid_to_run_.find(pid);
  if (found == pid_to_run_.end()) {
    return;
  }
  JobRun* run = host_->FindRun(found->second);
  pid_to_run_.erase(found);
  if (run == nullptr) {
    return;
  }
  for (std::size_t i = 0; i < run->replicas.size(); ++i) {
    if (run->replicas[i].pid == pid && run->replicas[i].alive) {
      host_->HandleExit(*run, i, status);
      return;
    }
  }
}

void LocalBackend::Forget(const JobRun& run) {
  for (const JobRun::Replica& replica : run.replicas) {
    pid_to_run_.erase(replica.pid);
  }
}

void LocalBackend::KillRecorded(const RunRecord& record) {
  for (const RunRecord::Replica& replica : record.replicas) {
    Result<bool> alive = replica.pid > 0 ? launcher_.Adopt(replica.pid, replica.spec) : false;
    if (alive.ok() && *alive) {
      launcher_.SignalGroup(replica.pid, SIGKILL);
    }
  }
}

void LocalBackend::KillUnrecorded(const model::Job& job, const JobLayout& layout) {
  if (!job.training_input) {
    return;
  }
  Result<std::vector<plan::ReplicaShape>> shapes = plan::JobReplicas(job, catalog_);
  for (const plan::ReplicaShape& shape :
       shapes.ok() ? *shapes : std::vector<plan::ReplicaShape>{}) {
    run::ProcessSpec spec;
    spec.log_path = layout.log_path(shape.task_name);
    spec.exit_path = layout.exit_path(shape.task_name);
    Result<int> pid = launcher_.FindStarted(spec);
    if (pid.ok() && *pid > 0) {
      launcher_.SignalGroup(*pid, SIGKILL);
    }
  }
}

}  // namespace trainyard::control
