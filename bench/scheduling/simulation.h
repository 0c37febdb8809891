// A scheduling simulation on a fake clock (bench_scheduling): jobs arrive, one queue pass runs at
// each arrival and each end, and every started job runs for its duration. The pass is sharing's
// (sched::Share) or today's Place, so both are measured on the same workload.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sched/fair_share.h"
#include "sched/inventory.h"
#include "sched/sharing.h"

namespace trainyard::bench {

using Seconds = std::chrono::seconds;
inline constexpr char kT4[] = "NVIDIA_TESLA_T4";  // every simulated device

struct SimJob {
  std::string project;
  int gpus = 1;
  Seconds submit{0};
  Seconds duration{0};
  std::optional<Seconds> limit;  // its maxRunningTime
};

enum class Policy { kShare, kPlace };

struct SimResult {
  std::vector<std::optional<Seconds>> starts;  // parallel to the jobs; nullopt: never started
  // Device-seconds per project while every project had a job waiting, and how long that was.
  std::map<std::string, double> contended_device_seconds;
  double contended_seconds = 0;
  double contended_busy_device_seconds = 0;
  Seconds end{0};
};

// Runs `jobs` (in submission order; their index is their FIFO sequence) on `inventory` until all
// have ended or `until` passes. Every job is one replica of `gpus` × NVIDIA_TESLA_T4.
SimResult Simulate(const sched::Inventory& inventory, const std::vector<SimJob>& jobs,
                   Policy policy, const sched::SharingPolicy* sharing, Seconds until);

// The longest remaining real time, and the longest remaining time by maxRunningTime, of the jobs
// running at `at` in a simulation's result.
struct Remaining {
  Seconds real{0};
  Seconds by_limit{0};
};
Remaining RemainingAt(const std::vector<SimJob>& jobs, const SimResult& result, Seconds at);

}  // namespace trainyard::bench
