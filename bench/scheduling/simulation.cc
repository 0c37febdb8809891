#include "bench/scheduling/simulation.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "sched/placement.h"

namespace trainyard::bench {
namespace {

const WallTime kEpoch = WallTime(std::chrono::hours(24 * 365 * 56));

std::string KeyOf(const SimJob& job, std::size_t i) {
  return fmt::format("{}/j{}", job.project, i);
}

sched::JobDemand DemandOf(const SimJob& job, std::size_t i) {
  sched::JobDemand demand{.key = KeyOf(job, i),
                          .sequence = static_cast<std::int64_t>(i),
                          .replicas = {{.task_name = "master-replica-0",
                                        .machine_type = "n1-standard-4",
                                        .cpus = 4,
                                        .memory_mib = 15 * 1024,
                                        .accelerator = kT4,
                                        .accelerator_count = job.gpus}}};
  demand.project = job.project;
  demand.max_running_time = job.limit;
  return demand;
}

struct Run {
  std::size_t job;
  sched::Allocation allocation;
  Seconds end;
};

}  // namespace

SimResult Simulate(const sched::Inventory& inventory, const std::vector<SimJob>& jobs,
                   Policy policy, const sched::SharingPolicy* sharing, Seconds until) {
  SimResult result;
  result.starts.assign(jobs.size(), std::nullopt);
  std::set<std::string> projects;
  for (const SimJob& job : jobs) {
    projects.insert(job.project);
  }
  std::map<std::string, std::size_t> index;  // key -> job
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    index[KeyOf(jobs[i], i)] = i;
  }
  std::vector<std::size_t> waiting;  // arrived, not started, in arrival order
  std::vector<Run> running;
  std::size_t arrived = 0;
  std::size_t head = jobs.size();  // the first job left waiting by the last pass; none: size
  // Each project's device-time so far, in seconds of the whole inventory (not decayed: the
  // backlog is the horizon).
  std::map<std::string, double, std::less<>> usage;
  double inventory_devices = 0;
  for (const sched::Node& node : inventory.nodes) {
    inventory_devices += static_cast<double>(node.devices.size());
  }
  Seconds now{0};
  while (now <= until) {
    while (arrived < jobs.size() && jobs[arrived].submit <= now) {
      waiting.push_back(arrived++);
    }
    std::vector<sched::JobDemand> queue;
    queue.reserve(waiting.size());
    for (const std::size_t i : waiting) {
      queue.push_back(DemandOf(jobs[i], i));
      queue.back().head = head == i;  // as the executor's jobPosition 1 says
    }
    std::vector<sched::Allocation> started;
    head = jobs.size();
    if (policy == Policy::kPlace) {
      std::vector<sched::Allocation> holding;
      for (const Run& run : running) {
        holding.push_back(run.allocation);
      }
      started = sched::Place(inventory, sched::Accounting::kShared, holding, queue);
    } else {
      std::vector<sched::RunningJob> holding;
      for (const Run& run : running) {
        holding.push_back({.allocation = run.allocation,
                           .project = jobs[run.job].project,
                           .start = kEpoch + *result.starts[run.job],
                           .max_running_time = jobs[run.job].limit});
      }
      sched::SharePass pass = sched::Share({.inventory = inventory,
                                            .running = holding,
                                            .queue = queue,
                                            .policy = sharing,
                                            .now = kEpoch + now,
                                            .usage = &usage});
      started = std::move(pass.start);
      if (!pass.waiting.empty()) {
        head = index.at(pass.waiting.front().key);
      }
    }
    for (sched::Allocation& allocation : started) {
      const std::size_t i = index.at(allocation.key);
      result.starts[i] = now;
      std::erase(waiting, i);
      running.push_back(
          {.job = i, .allocation = std::move(allocation), .end = now + jobs[i].duration});
    }
    // The next event: an arrival or an end.
    std::optional<Seconds> next;
    if (arrived < jobs.size()) {
      next = jobs[arrived].submit;
    }
    for (const Run& run : running) {
      next = next ? std::min(*next, run.end) : run.end;
    }
    if (!next) {
      break;
    }
    std::set<std::string> wanting;
    for (const std::size_t i : waiting) {
      wanting.insert(jobs[i].project);
    }
    const double span = static_cast<double>((*next - now).count());
    for (const Run& run : running) {
      usage[jobs[run.job].project] += jobs[run.job].gpus * span / inventory_devices;
    }
    if (wanting == projects) {
      result.contended_seconds += span;
      for (const Run& run : running) {
        const double devices = jobs[run.job].gpus * span;
        result.contended_device_seconds[jobs[run.job].project] += devices;
        result.contended_busy_device_seconds += devices;
      }
    }
    now = *next;
    std::erase_if(running, [&](const Run& run) { return run.end <= now; });
  }
  result.end = now;
  return result;
}

Remaining RemainingAt(const std::vector<SimJob>& jobs, const SimResult& result, Seconds at) {
  Remaining remaining;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::optional<Seconds>& start = result.starts[i];
    if (!start || *start >= at || *start + jobs[i].duration <= at) {
      continue;
    }
    remaining.real = std::max(remaining.real, *start + jobs[i].duration - at);
    if (jobs[i].limit) {
      remaining.by_limit = std::max(remaining.by_limit, *start + *jobs[i].limit - at);
    }
  }
  return remaining;
}

}  // namespace trainyard::bench
