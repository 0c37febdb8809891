// bench_scheduling: issue #34's measurements of the sharing rules (sched/fair_share.h) on a fake
// clock, each beside today's Place (priority, FIFO, no head-of-line blocking) on the same
// workload in the same run:
//   (a) fair share: 3 projects weighted 2:1:1 with a backlog of 1,000 jobs of mixed sizes and
//       durations on 8 GPUs: each project's device-time share while all have work, and the
//       utilisation then;
//   (b) no starvation: an 8-GPU gang job submitted into a stream of 1-GPU jobs: its wait, and the
//       bound (the longest running job's remaining time, real and by maxRunningTime);
//   (c) speed: one pass with 10,000 queued jobs and 1,000 devices (median of 7).
// Usage: bench_scheduling [--seed N]. Prints its figures; measures, never passes or fails.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/clock.h"
#include "bench/scheduling/simulation.h"
#include "sched/placement.h"
#include "sched/room.h"

namespace trainyard::bench {
namespace {

sched::Inventory Nodes(int nodes, int t4s_each) {
  sched::Inventory inventory;
  for (int n = 0; n < nodes; ++n) {
    sched::Node node{.name = fmt::format("n{}", n), .cpus = 96, .memory_mib = 360 * 1024};
    for (int d = 0; d < t4s_each; ++d) {
      node.devices.push_back(
          {.index = d, .accelerator = kT4, .model = "emulated", .emulated = true});
    }
    inventory.nodes.push_back(std::move(node));
  }
  return inventory;
}

int MixedSize(std::mt19937& random) {
  const int sizes[] = {1, 1, 1, 1, 1, 2, 2, 2, 4, 4, 8};  // mostly small, some gangs
  return sizes[std::uniform_int_distribution<int>(0, std::size(sizes) - 1)(random)];
}

void FairShare(std::uint32_t seed, double limit_factor) {
  std::mt19937 random(seed);
  const std::vector<std::string> projects = {"a", "b", "c"};
  std::vector<SimJob> jobs;
  for (int i = 0; i < 1000; ++i) {
    const Seconds duration(std::uniform_int_distribution<int>(60, 1800)(random));
    jobs.push_back({.project = projects[std::uniform_int_distribution<int>(0, 2)(random)],
                    .gpus = MixedSize(random),
                    .duration = duration,
                    .limit = Seconds(static_cast<long>(duration.count() * limit_factor))});
  }
  sched::SharingPolicy sharing;
  sharing.projects = {{.project = "a", .weight = 2}, {.project = "b"}, {.project = "c"}};
  const sched::Inventory inventory = Nodes(1, 8);
  fmt::print(
      "(a) fair share: 1,000 jobs (1-8 GPUs, 60-1800 s, maxRunningTime = {:.2f} x "
      "duration), projects a:b:c weighted 2:1:1, 8 GPUs, seed {}\n",
      limit_factor, seed);
  for (const Policy policy : {Policy::kShare, Policy::kPlace}) {
    SimResult r = Simulate(inventory, jobs, policy, &sharing, Seconds(10'000'000));
    double total = 0;
    for (const auto& [project, seconds] : r.contended_device_seconds) {
      total += seconds;
    }
    std::string shares;
    for (const std::string& project : projects) {
      const double target = project == "a" ? 50 : 25;
      const double share = total > 0 ? 100 * r.contended_device_seconds[project] / total : 0;
      shares += fmt::format(" {}={:.1f}% (target {:.0f}%, {:+.1f} pts)", project, share, target,
                            share - target);
    }
    fmt::print("  {:5}: while all 3 had work ({:.0f} s of {} s):{}; utilisation {:.1f}%\n",
               policy == Policy::kShare ? "share" : "Place", r.contended_seconds, r.end.count(),
               shares,
               100 * r.contended_busy_device_seconds / (8 * std::max(1.0, r.contended_seconds)));
  }
}

void GangIntoStream(std::uint32_t seed, double limit_factor) {
  std::mt19937 random(seed);
  std::vector<SimJob> jobs;
  const Seconds submit(3600);
  const Seconds stream_end(20'000);
  bool gang_added = false;
  std::size_t gang = 0;
  for (Seconds t(0); t < stream_end; t += Seconds(35)) {
    if (!gang_added && t >= submit) {
      gang = jobs.size();
      jobs.push_back({.project = "gang",
                      .gpus = 8,
                      .submit = submit,
                      .duration = Seconds(600),
                      .limit = Seconds(static_cast<long>(600 * limit_factor))});
      gang_added = true;
    }
    const Seconds duration(std::uniform_int_distribution<int>(120, 600)(random));
    jobs.push_back({.project = "stream",
                    .gpus = 1,
                    .submit = t,
                    .duration = duration,
                    .limit = Seconds(static_cast<long>(duration.count() * limit_factor))});
  }
  const sched::Inventory inventory = Nodes(1, 8);
  fmt::print(
      "(b) an 8-GPU gang job submitted at {} s into a stream of 1-GPU jobs (one every 35 s "
      "until {} s, 120-600 s, maxRunningTime = {:.2f} x duration), 8 GPUs, seed {}\n",
      submit.count(), stream_end.count(), limit_factor, seed);
  for (const Policy policy : {Policy::kShare, Policy::kPlace}) {
    const SimResult r = Simulate(inventory, jobs, policy, nullptr, Seconds(10'000'000));
    const Remaining bound = RemainingAt(jobs, r, submit);
    const std::optional<Seconds>& start = r.starts[gang];
    fmt::print(
        "  {:5}: waited {}; bound: longest running job's remaining time {} s real, {} s "
        "by maxRunningTime\n",
        policy == Policy::kShare ? "share" : "Place",
        start ? fmt::format("{} s{}", (*start - submit).count(),
                            *start >= stream_end ? " (after the stream ended)" : "")
              : std::string("forever"),
        bound.real.count(), bound.by_limit.count());
  }
}

void OnePass(std::uint32_t seed) {
  std::mt19937 random(seed);
  const sched::Inventory inventory = Nodes(125, 8);  // 1,000 devices
  sched::SharingPolicy sharing;
  for (int p = 0; p < 10; ++p) {
    sched::ProjectQuota quota{.project = fmt::format("p{}", p), .weight = 1 + p % 3};
    quota.accelerators[kT4] = 100;
    sharing.projects.push_back(std::move(quota));
  }
  // About 90 % of the devices run jobs of every project; 10,000 wait.
  sched::Room room(inventory, sched::Accounting::kShared);
  std::vector<sched::RunningJob> running;
  std::vector<sched::Allocation> allocations;
  const WallTime now = WallTime(std::chrono::hours(24 * 365 * 56));
  for (int i = 0; room.FreeOf(kT4) > 100; ++i) {
    const int project = std::uniform_int_distribution<int>(0, 9)(random);
    sched::JobDemand demand{.key = fmt::format("p{}/r{}", project, i),
                            .replicas = {{.task_name = "master-replica-0",
                                          .cpus = 4,
                                          .memory_mib = 15 * 1024,
                                          .accelerator = kT4,
                                          .accelerator_count = MixedSize(random)}}};
    if (std::optional<sched::Allocation> allocation = room.TryTake(demand)) {
      allocations.push_back(*allocation);
      running.push_back(
          {.allocation = std::move(*allocation),
           .priority = std::uniform_int_distribution<int>(0, 1)(random),
           .start = now - Seconds(std::uniform_int_distribution<int>(0, 3600)(random)),
           .max_running_time = Seconds(std::uniform_int_distribution<int>(600, 7200)(random))});
    }
  }
  std::vector<sched::JobDemand> queue;
  for (int i = 0; i < 10'000; ++i) {
    sched::JobDemand demand{
        .key = fmt::format("p{}/q{}", std::uniform_int_distribution<int>(0, 9)(random), i),
        .priority = std::uniform_int_distribution<int>(0, 1)(random),
        .sequence = i,
        .replicas = {{.task_name = "master-replica-0",
                      .cpus = 4,
                      .memory_mib = 15 * 1024,
                      .accelerator = kT4,
                      .accelerator_count = MixedSize(random)}}};
    demand.max_running_time = Seconds(std::uniform_int_distribution<int>(600, 7200)(random));
    queue.push_back(std::move(demand));
  }
  const SystemClock clock;
  auto median_ms = [&](auto&& pass) {
    std::vector<double> times;
    std::size_t started = 0;
    for (int run = 0; run < 7; ++run) {
      const MonoTime begin = clock.Monotonic();
      started = pass();
      times.push_back(std::chrono::duration<double, std::milli>(clock.Monotonic() - begin).count());
    }
    std::ranges::sort(times);
    return std::pair(times[times.size() / 2], started);
  };
  const auto [share_ms, share_started] = median_ms([&] {
    return sched::Share({.inventory = inventory,
                         .running = running,
                         .queue = queue,
                         .policy = &sharing,
                         .now = now})
        .start.size();
  });
  const auto [place_ms, place_started] = median_ms([&] {
    return sched::Place(inventory, sched::Accounting::kShared, allocations, queue).size();
  });
  fmt::print(
      "(c) one pass: 10,000 queued jobs, 1,000 devices (125 nodes x 8), {} running jobs "
      "holding {} devices, 10 projects with quotas, seed {} (median of 7; aim <= 50 ms)\n",
      running.size(), 1000 - room.FreeOf(kT4), seed);
  fmt::print("  share: {:.2f} ms ({} started)\n  Place: {:.2f} ms ({} started)\n", share_ms,
             share_started, place_ms, place_started);
}

}  // namespace
}  // namespace trainyard::bench

int main(int argc, char** argv) {
  std::uint32_t seed = 34;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string_view(argv[i]) == "--seed") {
      seed = static_cast<std::uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
    }
  }
  for (const double factor : {1.0, 1.5}) {
    trainyard::bench::FairShare(seed, factor);
  }
  for (const double factor : {1.0, 1.5}) {
    trainyard::bench::GangIntoStream(seed, factor);
  }
  trainyard::bench::OnePass(seed);
  return 0;
}
