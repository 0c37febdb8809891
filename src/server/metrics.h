// Request counters and latency histograms for `GET /metrics` (Prometheus text format 0.0.4):
//   trainyard_http_requests_total{route,code}            counter
//   trainyard_http_request_duration_seconds{route}       histogram (_bucket{le}, _sum, _count)
//   trainyard_jobs{state}                                gauge, from the caller's counts
// and, per project (issue #34; RenderProjectMetrics), with `resource` an accelerator type,
// "cpus", "memory_mib" or "jobs":
//   trainyard_project_quota{project,resource}            gauge, the limit (absent: no limit)
//   trainyard_project_weight{project}                    gauge, the fair-share weight
//   trainyard_project_use{project,resource}              gauge, held as of the last queue pass
//   trainyard_project_waiting_jobs{project}              gauge, QUEUED jobs waiting for room
// Thread-safe: `Record` and `Render` may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/job.h"
#include "sched/amounts.h"
#include "sched/sharing.h"

namespace trainyard::server {

// The per-project gauges above, for every project with a quota, a use or waiting jobs.
std::string RenderProjectMetrics(const sched::SharingPolicy& policy,
                                 const std::map<std::string, sched::Amounts, std::less<>>& use,
                                 const std::map<std::string, int, std::less<>>& waiting);

class Metrics {
 public:
  // One answered request: its route label, HTTP status and time spent.
  void Record(std::string_view route, int http_status, double seconds);

  // The exposition text. `job_counts` are jobs per state; states left out are shown as 0.
  std::string Render(const std::vector<std::pair<model::JobState, std::int64_t>>& job_counts) const;

 private:
  struct Histogram {
    std::vector<std::uint64_t> buckets;  // one per bound in kBounds, not cumulative
    std::uint64_t count = 0;
    double sum = 0;
  };

  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, std::uint64_t, std::less<>> requests_;  // guarded by mu_
  std::map<std::string, Histogram, std::less<>> latency_;                       // guarded by mu_
};

}  // namespace trainyard::server
