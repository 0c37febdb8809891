#include "control/reconcile/queue.h"

#include <algorithm>
#include <map>
#include <optional>

#include "control/reconcile/job_limits.h"
#include "sched/fair_share.h"

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
  candidate.demand.project = project;
  candidate.demand.max_running_time = MaxRunningTime(job);
  candidate.demand.head = job.job_position == 1;
  return std::nullopt;
}

// What sharing knows of each running allocation, from the stored job its key names.
std::vector<sched::RunningJob> RunningJobs(const QueueWorld& world) {
  std::map<std::string, const std::pair<std::string, model::Job>*, std::less<>> by_key;
  for (const auto& entry : world.jobs) {
    by_key.emplace(entry.first + "/" + entry.second.job_id, &entry);
  }
  std::vector<sched::RunningJob> running;
  running.reserve(world.running.size());
  for (const sched::Allocation& allocation : world.running) {
    sched::RunningJob& job = running.emplace_back(sched::RunningJob{.allocation = allocation});
    const std::size_t slash = allocation.key.find('/');
    const bool trial = allocation.key.find('/', slash + 1) != std::string::npos;
    const auto found = by_key.find(allocation.key.substr(0, allocation.key.find('/', slash + 1)));
    job.preemptible = !trial && found != by_key.end();
    if (found == by_key.end() || !found->second->second.training_input) {
      continue;
    }
    const auto& [project, stored] = *found->second;
    job.project = project;
    job.start = stored.start_time;
    job.max_running_time = MaxRunningTime(stored);
    job.preemptible = job.preemptible && sched::PreemptibleByLabels(stored.labels);
    if (Result<std::vector<plan::ReplicaShape>> shapes = plan::JobReplicas(stored, world.catalog);
        shapes.ok()) {
      // With the policy: a running TFJob's priority is its class's number, as it was queued with.
      if (Result<sched::JobDemand> demand =
              JobDemandOf(project, stored, *shapes, world.catalog, world.sharing);
          demand.ok()) {
        job.priority = demand->priority;
      }
    }
  }
  return running;
}

}  // namespace

std::optional<EndOrphan> OrphanEnd(const std::string& project, const model::Job& job) {
  EndOrphan end{.project = project, .job = job};
  if (job.state != model::JobState::kCancelling && model::IsSuspended(job) &&
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
    if (model::IsSuspended(job)) {
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

  sched::SharePass shared;
  if (world.hand_over) {
    shared.start = HandOver(demands);
  } else {
    const std::vector<sched::RunningJob> running = RunningJobs(world);
    shared = sched::Share({.inventory = world.inventory,
                           .accounting = world.accounting,
                           .running = running,
                           .queue = demands,
                           .policy = world.sharing,
                           .now = world.now,
                           .usage = world.usage});
  }
  for (sched::Preemption& preemption : shared.preempt) {
    const std::size_t slash = preemption.victim.find('/');
    pass.actions.emplace_back(PreemptJob{.project = preemption.victim.substr(0, slash),
                                         .job_id = preemption.victim.substr(slash + 1),
                                         .message = std::move(preemption.message)});
  }
  auto find = [&](const std::string& key) {
    return std::ranges::find_if(
        candidates, [&](const Candidate& candidate) { return candidate.demand.key == key; });
  };
  for (const sched::Allocation& allocation : shared.start) {
    auto it = find(allocation.key);
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
  }

  std::int64_t position = 0;
  for (sched::Waiting& waiting : shared.waiting) {
    auto it = find(waiting.key);
    if (it == candidates.end()) {
      continue;  // a study's next trial: no position of its own
    }
    ++position;
    pass.queue.push_back({.project = *it->project,
                          .job_id = it->job->job_id,
                          .position = position,
                          .reason = std::move(waiting.reason)});
    if (it->job->job_position != position) {
      pass.actions.emplace_back(
          SetPosition{.project = *it->project, .job_id = it->job->job_id, .position = position});
    }
  }
  return pass;
}

}  // namespace trainyard::control
