#include "server/metrics.h"

#include <array>
#include <iterator>

#include <fmt/format.h>

namespace trainyard::server {
namespace {

// Upper bounds of the latency buckets, in seconds (+Inf is implied).
constexpr std::array<double, 12> kBounds = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                            0.05,   0.1,   0.25,   0.5,   1,    2.5};

constexpr std::array<model::JobState, 7> kStates = {
    model::JobState::kQueued,    model::JobState::kPreparing, model::JobState::kRunning,
    model::JobState::kSucceeded, model::JobState::kFailed,    model::JobState::kCancelling,
    model::JobState::kCancelled};

// A label value with `\`, `"` and newlines escaped, as the text format requires.
std::string Escape(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::string RenderProjectMetrics(const sched::SharingPolicy& policy,
                                 const std::map<std::string, sched::Amounts, std::less<>>& use,
                                 const std::map<std::string, int, std::less<>>& waiting) {
  std::string quota_text;
  std::string weight_text;
  for (const sched::ProjectQuota& quota : policy.projects) {
    const std::string project = Escape(quota.project);
    const auto gauge = [&](std::string_view resource, std::int64_t value) {
      fmt::format_to(std::back_inserter(quota_text),
                     "trainyard_project_quota{{project=\"{}\",resource=\"{}\"}} {}\n", project,
                     Escape(resource), value);
    };
    for (const auto& [accelerator, count] : quota.accelerators) {
      gauge(accelerator, count);
    }
    if (quota.cpus) {
      gauge("cpus", *quota.cpus);
    }
    if (quota.memory_mib) {
      gauge("memory_mib", *quota.memory_mib);
    }
    if (quota.jobs) {
      gauge("jobs", *quota.jobs);
    }
    fmt::format_to(std::back_inserter(weight_text),
                   "trainyard_project_weight{{project=\"{}\"}} {}\n", project, quota.weight);
  }
  std::string use_text;
  for (const auto& [name, held] : use) {
    const std::string project = Escape(name);
    const auto gauge = [&](std::string_view resource, std::int64_t value) {
      fmt::format_to(std::back_inserter(use_text),
                     "trainyard_project_use{{project=\"{}\",resource=\"{}\"}} {}\n", project,
                     Escape(resource), value);
    };
    for (const auto& [accelerator, count] : held.devices) {
      gauge(accelerator, count);
    }
    gauge("cpus", held.cpus);
    gauge("memory_mib", held.memory_mib);
    gauge("jobs", held.jobs);
  }
  std::string waiting_text;
  for (const auto& [name, count] : waiting) {
    fmt::format_to(std::back_inserter(waiting_text),
                   "trainyard_project_waiting_jobs{{project=\"{}\"}} {}\n", Escape(name), count);
  }
  return "# HELP trainyard_project_quota A project's quota per resource (issue #34).\n"
         "# TYPE trainyard_project_quota gauge\n" +
         quota_text +
         "# HELP trainyard_project_weight A project's fair-share weight.\n"
         "# TYPE trainyard_project_weight gauge\n" +
         weight_text +
         "# HELP trainyard_project_use What a project's jobs hold, per resource.\n"
         "# TYPE trainyard_project_use gauge\n" +
         use_text +
         "# HELP trainyard_project_waiting_jobs A project's queued jobs waiting for room.\n"
         "# TYPE trainyard_project_waiting_jobs gauge\n" +
         waiting_text;
}

void Metrics::Record(std::string_view route, int http_status, double seconds) {
  std::lock_guard lock(mu_);
  ++requests_[{std::string(route), http_status}];
  auto it = latency_.find(route);
  if (it == latency_.end()) {
    it = latency_
             .emplace(std::string(route),
                      Histogram{.buckets = std::vector<std::uint64_t>(kBounds.size())})
             .first;
  }
  Histogram& h = it->second;
  for (std::size_t i = 0; i < kBounds.size(); ++i) {
    if (seconds <= kBounds[i]) {
      ++h.buckets[i];
      break;
    }
  }
  ++h.count;
  h.sum += seconds;
}

std::string Metrics::Render(
    const std::vector<std::pair<model::JobState, std::int64_t>>& job_counts) const {
  std::string out;
  auto sink = std::back_inserter(out);
  {
    std::lock_guard lock(mu_);
    fmt::format_to(sink,
                   "# HELP trainyard_http_requests_total HTTP requests answered, by route and "
                   "status code.\n# TYPE trainyard_http_requests_total counter\n");
    for (const auto& [key, count] : requests_) {
      fmt::format_to(sink, "trainyard_http_requests_total{{route=\"{}\",code=\"{}\"}} {}\n",
                     Escape(key.first), key.second, count);
    }
    fmt::format_to(sink,
                   "# HELP trainyard_http_request_duration_seconds Time to answer an HTTP "
                   "request, by route.\n# TYPE trainyard_http_request_duration_seconds "
                   "histogram\n");
    for (const auto& [route, h] : latency_) {
      const std::string label = Escape(route);
      std::uint64_t cumulative = 0;
      for (std::size_t i = 0; i < kBounds.size(); ++i) {
        cumulative += h.buckets[i];
        fmt::format_to(sink,
                       "trainyard_http_request_duration_seconds_bucket{{route=\"{}\",le=\"{}\"}} "
                       "{}\n",
                       label, kBounds[i], cumulative);
      }
      fmt::format_to(sink,
                     "trainyard_http_request_duration_seconds_bucket{{route=\"{}\",le=\"+Inf\"}} "
                     "{}\n",
                     label, h.count);
      fmt::format_to(sink, "trainyard_http_request_duration_seconds_sum{{route=\"{}\"}} {}\n",
                     label, h.sum);
      fmt::format_to(sink, "trainyard_http_request_duration_seconds_count{{route=\"{}\"}} {}\n",
                     label, h.count);
    }
  }
  fmt::format_to(sink,
                 "# HELP trainyard_jobs Jobs in the store, by state.\n# TYPE trainyard_jobs "
                 "gauge\n");
  for (model::JobState state : kStates) {
    std::int64_t count = 0;
    for (const auto& [s, n] : job_counts) {
      if (s == state) {
        count += n;
      }
    }
    fmt::format_to(sink, "trainyard_jobs{{state=\"{}\"}} {}\n", model::JobStateName(state), count);
  }
  return out;
}

}  // namespace trainyard::server
