#include "control/reconcile/queue.h"

#include <algorithm>
#include <optional>

#include "control/reconcile/job_limits.h"
#include "sched/wait_reason.h"

namespace trainyard::control {
namespace {

constexpr std::string_view kRestartedRunning =
    "The trainyard server restarted while the job was running; its replicas were stopped.";
constexpr std::string_view kRestartedCancelling =
    "Job was cancelled by the user. (The trainyard server restarted while it was cancelling.)";

// A QUEUED job that competes for room.
struct Candidate {
  const std::string* project;
  const model::Job* job;
  std::vector<plan::ReplicaShape> shapes;
  sched::JobDemand demand;
};

// With a cluster manager every job goes to it at once, in the order placement would consider
// them; it queues them itself. The allocations say what each replica asks for, on no node of
// trainyard's.
std::vector<sched::Allocation> HandOver(std::vector<sched::JobDemand> demands) {
  std::stable_sort(demands.begin(), demands.end(), sched::StartsBefore);
  std::vector<sched::Allocation> allocations;
  for (const sched::JobDemand& demand : demands) {
    sched::Allocation& allocation = allocations.emplace_back();
    allocation.key = demand.key;
    for (const sched::ReplicaDemand& replica : demand.replicas) {
      allocation.replicas.push_back(
          {.task_name = replica.task_name, .cpus = replica.cpus, .memory_mib = replica.memory_mib});
    }
  }
  return allocations;
}

// Why `job` may not compete for room at all: the end it comes to now, or nullopt.
std::optional<EndQueuedJob> Unrunnable(const QueueWorld& world, const std::string& project,
                                       const model::Job& job, Candidate& candidate) {
  auto end = [&](model::JobState state, std::string message) {
    return EndQueuedJob{
        .project = project, .job_id = job.job_id, .state = state, .message = std::move(message)};
  };
  if (PastMaxWaitTime(job, world.now)) {
    return end(model::JobState::kCancelled, std::string(MaxWaitTimeMessage()));
  }
  Result<std::vector<plan::ReplicaShape>> shapes = plan::JobReplicas(job, world.catalog);
  if (!shapes.ok()) {
    return end(model::JobState::kFailed, shapes.status().message());
  }
  Result<sched::JobDemand> demand =
      JobDemandOf(project, job, *shapes, world.catalog, world.sharing);
  if (!demand.ok()) {
    return end(model::JobState::kFailed, demand.status().message());
  }
  // With a cluster manager, whether and where the job fits is the manager's to say.
  if (!world.hand_over) {
    if (auto never = sched::NeverFits(world.inventory, world.accounting, *demand)) {
      return end(model::JobState::kFailed, "The job cannot run on this cluster: it " + *never);
    }
  }
  candidate.shapes = std::move(*shapes);
  candidate.demand = std::move(*demand);
  return std::nullopt;
}

}  // namespace

std::optional<EndOrphan> OrphanEnd(const std::string& project, const model::Job& job) {
  EndOrphan end{.project = project, .job = job};
  if (job.state != model::JobState::kCancelling && job.extras && job.extras->suspended &&
      (job.state == model::JobState::kPreparing || job.state == model::JobState::kRunning)) {
    end.to = model::JobState::kQueued;  // its suspension's write was lost: queued as it asked
    return end;
  }
  switch (job.state) {
    case model::JobState::kPreparing:
      end.to = model::JobState::kQueued;
      return end;
    case model::JobState::kRunning:
      end.to = model::JobState::kFailed;
      end.message = kRestartedRunning;
      return end;
    case model::JobState::kCancelling:
      end.to = model::JobState::kCancelled;
      end.message = kRestartedCancelling;
      return end;
    default:
      return std::nullopt;
  }
}

QueuePass ReconcileQueue(const QueueWorld& world) {
  QueuePass pass;
  std::vector<Candidate> candidates;
  std::vector<sched::JobDemand> demands;
  for (const auto& [project, job] : world.jobs) {
    if (world.held != nullptr && !world.held->contains(project + "/" + job.job_id)) {
      if (std::optional<EndOrphan> orphan = OrphanEnd(project, job)) {
        pass.actions.emplace_back(std::move(*orphan));
        continue;
      }
    }
    if (world.hold || job.state != model::JobState::kQueued || !job.training_input) {
      continue;
    }
    if (job.extras && job.extras->suspended) {
      if (job.job_position != 0) {
        pass.actions.emplace_back(SetPosition{.project = project, .job_id = job.job_id});
      }
      continue;
    }
    Candidate candidate{.project = &project, .job = &job};
    if (std::optional<EndQueuedJob> end = Unrunnable(world, project, job, candidate)) {
      pass.actions.emplace_back(std::move(*end));
      continue;
    }
    demands.push_back(candidate.demand);
    candidates.push_back(std::move(candidate));
  }
  if (world.hold) {
    return pass;
  }
  demands.insert(demands.end(), world.trials.begin(), world.trials.end());

  const std::vector<sched::Allocation> placed =
      world.hand_over ? HandOver(demands)
                      : sched::Place(world.inventory, world.accounting, world.running, demands);
  std::vector<sched::Allocation> holding = world.running;
  for (const sched::Allocation& allocation : placed) {
    holding.push_back(allocation);
    auto it = std::ranges::find_if(candidates, [&](const Candidate& candidate) {
      return candidate.demand.key == allocation.key;
    });
    if (it == candidates.end()) {
      pass.actions.emplace_back(
          PlaceTrial{.study_key = allocation.key.substr(0, allocation.key.rfind('/')),
                     .allocation = allocation});
      continue;
    }
    pass.actions.emplace_back(PlaceJob{.project = *it->project,
                                       .job_id = it->job->job_id,
                                       .allocation = allocation,
                                       .shapes = std::move(it->shapes)});
    candidates.erase(it);
  }

  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     return sched::StartsBefore(a.demand, b.demand);
                   });
  std::int64_t position = 0;
  for (const Candidate& candidate : candidates) {
    ++position;
    pass.queue.push_back({.project = *candidate.project,
                          .job_id = candidate.job->job_id,
                          .position = position,
                          .reason = sched::WaitReason(world.inventory, holding, candidate.demand)});
    if (candidate.job->job_position != position) {
      pass.actions.emplace_back(SetPosition{
          .project = *candidate.project, .job_id = candidate.job->job_id, .position = position});
    }
  }
  return pass;
}

}  // namespace trainyard::control
