// The executor's queue: placement of QUEUED jobs, maxWaitTime, jobPosition, and recovery of
// what a previous server left.
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <sys/types.h>
#include <unistd.h>

#include "control/executor.h"
#include "control/executor_run.h"
#include "control/job_layout.h"
#include "plan/replicas.h"

namespace trainyard::control {
namespace {

constexpr std::string_view kRestartedRunning =
    "The trainyard server restarted while the job was running; its replicas were stopped.";
constexpr std::string_view kRestartedCancelling =
    "Job was cancelled by the user. (The trainyard server restarted while it was cancelling.)";

// The demand of every replica of `shapes`, or the error that makes the job unrunnable.
Result<std::vector<sched::ReplicaDemand>> DemandsOf(const std::vector<plan::ReplicaShape>& shapes,
                                                    const catalog::Catalog& catalog) {
  std::vector<sched::ReplicaDemand> demands;
  for (const plan::ReplicaShape& shape : shapes) {
    Result<sched::ReplicaDemand> demand = sched::DemandOf(
        shape.task_name, shape.machine_type, shape.accelerator, shape.accelerator_count, catalog);
    if (!demand.ok()) {
      return demand.status();
    }
    demands.push_back(std::move(*demand));
  }
  return demands;
}

// Whether `pid` still runs as the leader of a replica whose working directory is under `root`.
bool IsOurReplica(int pid, const std::string& root) {
  std::error_code error;
  const std::filesystem::path cwd =
      std::filesystem::read_symlink(fmt::format("/proc/{}/cwd", pid), error);
  if (error) {
    return false;
  }
  return cwd.string().starts_with(root + "/") && getpgid(pid) == pid;
}

}  // namespace

std::vector<sched::Allocation> Executor::RunningAllocations() const {
  std::vector<sched::Allocation> allocations;
  for (const auto& [key, run] : runs_) {
    allocations.push_back(run->allocation);
  }
  return allocations;
}

void Executor::ScheduleQueue() {
  if (options_.hold_queue) {
    return;
  }
  Result<std::vector<std::pair<std::string, model::Job>>> unfinished = store_.ListUnfinished();
  if (!unfinished.ok()) {
    return;  // the store is unavailable: try again on the next scan
  }
  const WallTime now = Now();
  std::vector<Queued> queued;
  std::vector<sched::JobDemand> demands;
  for (auto& entry : *unfinished) {
    // Named references, not a structured binding: lambdas below capture them.
    const std::string& project = entry.first;
    model::Job& job = entry.second;
    if (job.state != model::JobState::kQueued || !job.training_input) {
      continue;
    }
    auto fail = [&](model::JobState state, std::string message) {
      (void)Transition(project, job.job_id, [&](model::Job& current) {
        if (current.state != model::JobState::kQueued) {
          return false;
        }
        current.state = state;
        current.error_message = message;
        current.start_time = now;
        current.end_time = now;
        current.job_position = 0;
        return true;
      });
    };
    if (auto wait = MaxWaitTime(job); wait && job.create_time && now - *job.create_time > *wait) {
      fail(model::JobState::kCancelled, std::string(MaxWaitTimeMessage()));
      continue;
    }
    Result<std::vector<plan::ReplicaShape>> shapes =
        plan::ExpandReplicas(*job.training_input, catalog_);
    if (!shapes.ok()) {
      fail(model::JobState::kFailed, shapes.status().message());
      continue;
    }
    Result<std::vector<sched::ReplicaDemand>> replicas = DemandsOf(*shapes, catalog_);
    if (!replicas.ok()) {
      fail(model::JobState::kFailed, replicas.status().message());
      continue;
    }
    sched::JobDemand demand;
    demand.key = project + "/" + job.job_id;
    demand.priority = job.training_input->scheduling ? job.training_input->scheduling->priority : 0;
    demand.sequence = job.create_time ? job.create_time->time_since_epoch().count() : 0;
    demand.replicas = std::move(*replicas);
    if (auto never = sched::NeverFits(options_.inventory, options_.accounting, demand)) {
      fail(model::JobState::kFailed, "The job cannot run on this cluster: it " + *never);
      continue;
    }
    demands.push_back(demand);
    queued.push_back({project, std::move(job), std::move(*shapes), std::move(demand)});
  }

  const std::vector<sched::Allocation> placed =
      sched::Place(options_.inventory, options_.accounting, RunningAllocations(), demands);
  for (const sched::Allocation& allocation : placed) {
    auto it = std::find_if(queued.begin(), queued.end(), [&](const Queued& candidate) {
      return candidate.demand.key == allocation.key;
    });
    if (it == queued.end()) {
      continue;
    }
    Result<model::Job> preparing =
        Transition(it->project, it->job.job_id, [&](model::Job& current) {
          if (current.state != model::JobState::kQueued) {
            return false;
          }
          current.state = model::JobState::kPreparing;
          current.start_time = now;
          current.job_position = 0;
          return true;
        });
    if (!preparing.ok() || preparing->state != model::JobState::kPreparing) {
      queued.erase(it);
      continue;
    }
    auto run = std::make_unique<Run>();
    run->key = allocation.key;
    run->project = it->project;
    run->job_id = it->job.job_id;
    run->allocation = allocation;
    for (plan::ReplicaShape& shape : it->shapes) {
      run->replicas.push_back(Run::Replica{.shape = std::move(shape)});
    }
    const model::TrainingInput& input = *preparing->training_input;
    const JobLayout layout(options_.data_dir, it->project, it->job.job_id);
    std::error_code error;
    std::filesystem::create_directories(layout.root(), error);
    Run& started = *run;
    runs_[allocation.key] = std::move(run);
    queued.erase(it);
    if (input.package_uris.empty()) {
      HandleStaged(started.key, Status());
      continue;
    }
    run::StageRequest request;
    request.package_uris = input.package_uris;
    request.gcs_mount = options_.gcs_mount;
    request.target_dir = layout.packages_dir();
    request.python = PythonFor(input);
    request.log_path = layout.staging_log();
    run_async_([this, key = started.key, request = std::move(request)] {
      Status staged = stager_.Stage(request);
      Post(Event{StagedEvent{key, std::move(staged)}});
    });
  }
  UpdatePositions(queued);
}

void Executor::UpdatePositions(std::vector<Queued>& queued) {
  std::stable_sort(queued.begin(), queued.end(), [](const Queued& a, const Queued& b) {
    return sched::StartsBefore(a.demand, b.demand);
  });
  std::int64_t position = 0;
  for (const Queued& entry : queued) {
    ++position;
    if (entry.job.job_position == position) {
      continue;
    }
    (void)Transition(entry.project, entry.job.job_id, [&](model::Job& current) {
      if (current.state != model::JobState::kQueued || current.job_position == position) {
        return false;
      }
      current.job_position = position;
      return true;
    });
  }
}

void Executor::Recover() {
  Result<std::vector<std::pair<std::string, model::Job>>> unfinished = store_.ListUnfinished();
  if (!unfinished.ok()) {
    return;
  }
  for (const auto& [project, job] : *unfinished) {
    if (job.state == model::JobState::kQueued || runs_.contains(project + "/" + job.job_id)) {
      continue;
    }
    const JobLayout layout(options_.data_dir, project, job.job_id);
    std::ifstream pids(layout.root() + "/replicas.pids");
    int pid = 0;
    std::string task;
    while (pids >> pid >> task) {
      if (pid > 0 && IsOurReplica(pid, layout.root())) {
        launcher_.SignalGroup(pid, SIGKILL);
      }
    }
    const WallTime now = Now();
    (void)Transition(project, job.job_id, [&](model::Job& current) {
      switch (current.state) {
        case model::JobState::kPreparing:
          current.state = model::JobState::kQueued;
          current.start_time.reset();
          return true;
        case model::JobState::kRunning:
          current.state = model::JobState::kFailed;
          current.error_message = kRestartedRunning;
          current.end_time = now;
          return true;
        case model::JobState::kCancelling:
          current.state = model::JobState::kCancelled;
          current.error_message = kRestartedCancelling;
          current.end_time = now;
          return true;
        default:
          return false;
      }
    });
  }
}

}  // namespace trainyard::control
