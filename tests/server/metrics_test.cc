#include "server/metrics.h"

#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace trainyard::server {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(Metrics, ShowsEachProjectsQuotaUseAndWaitingJobs) {
  sched::SharingPolicy policy;
  policy.projects = {{.project = "p",
                      .accelerators = {{"NVIDIA_TESLA_T4", 4}},
                      .cpus = 64,
                      .memory_mib = 1024,
                      .weight = 2}};
  const std::string text = RenderProjectMetrics(
      policy, {{"q", {.devices = {{"NVIDIA_TESLA_T4", 1}}, .cpus = 8, .jobs = 1}}}, {{"p", 3}});
  for (const std::string line : {
           "# TYPE trainyard_project_quota gauge",
           R"(trainyard_project_quota{project="p",resource="NVIDIA_TESLA_T4"} 4)",
           R"(trainyard_project_quota{project="p",resource="cpus"} 64)",
           R"(trainyard_project_quota{project="p",resource="memory_mib"} 1024)",
           R"(trainyard_project_weight{project="p"} 2)",
           R"(trainyard_project_use{project="q",resource="NVIDIA_TESLA_T4"} 1)",
           R"(trainyard_project_use{project="q",resource="cpus"} 8)",
           R"(trainyard_project_use{project="q",resource="jobs"} 1)",
           R"(trainyard_project_waiting_jobs{project="p"} 3)",
       }) {
    EXPECT_TRUE(Has(text, line)) << line << "\n" << text;
  }
  EXPECT_FALSE(Has(text, R"(trainyard_project_quota{project="p",resource="jobs"} 0)")) << text;
}

TEST(Metrics, CountsRequestsByRouteAndCode) {
  Metrics metrics;
  metrics.Record("jobs.get", 200, 0.001);
  metrics.Record("jobs.get", 200, 0.002);
  metrics.Record("jobs.get", 404, 0.001);
  const std::string text = metrics.Render({});
  EXPECT_TRUE(Has(text, "# TYPE trainyard_http_requests_total counter")) << text;
  EXPECT_TRUE(Has(text, R"(trainyard_http_requests_total{route="jobs.get",code="200"} 2)"));
  EXPECT_TRUE(Has(text, R"(trainyard_http_requests_total{route="jobs.get",code="404"} 1)"));
}

TEST(Metrics, KeepsCumulativeLatencyBuckets) {
  Metrics metrics;
  metrics.Record("jobs.list", 200, 0.0004);
  metrics.Record("jobs.list", 200, 0.03);
  metrics.Record("jobs.list", 200, 60);
  const std::string text = metrics.Render({});
  const std::string bucket = "trainyard_http_request_duration_seconds_bucket{route=\"jobs.list\",";
  EXPECT_TRUE(Has(text, bucket + "le=\"0.0005\"} 1")) << text;
  EXPECT_TRUE(Has(text, bucket + "le=\"0.025\"} 1"));
  EXPECT_TRUE(Has(text, bucket + "le=\"0.05\"} 2"));
  EXPECT_TRUE(Has(text, bucket + "le=\"2.5\"} 2"));
  EXPECT_TRUE(Has(text, bucket + "le=\"+Inf\"} 3"));
  EXPECT_TRUE(Has(text, R"(trainyard_http_request_duration_seconds_count{route="jobs.list"} 3)"));
  double sum = 0;
  for (double seconds : {0.0004, 0.03, 60.0}) {
    sum += seconds;
  }
  EXPECT_TRUE(Has(
      text,
      fmt::format("trainyard_http_request_duration_seconds_sum{{route=\"jobs.list\"}} {}", sum)));
}

TEST(Metrics, ShowsEveryJobStateWithZeroForMissingOnes) {
  Metrics metrics;
  const std::string text =
      metrics.Render({{model::JobState::kQueued, 3}, {model::JobState::kCancelled, 1}});
  EXPECT_TRUE(Has(text, "# TYPE trainyard_jobs gauge")) << text;
  EXPECT_TRUE(Has(text, R"(trainyard_jobs{state="QUEUED"} 3)"));
  EXPECT_TRUE(Has(text, R"(trainyard_jobs{state="CANCELLED"} 1)"));
  EXPECT_TRUE(Has(text, R"(trainyard_jobs{state="RUNNING"} 0)"));
  EXPECT_EQ(text.find("STATE_UNSPECIFIED"), std::string::npos);
}

TEST(Metrics, EscapesLabelValues) {
  Metrics metrics;
  metrics.Record("a\"b\\c\nd", 200, 0);
  EXPECT_TRUE(
      Has(metrics.Render({}), R"(trainyard_http_requests_total{route="a\"b\\c\nd",code="200"} 1)"));
}

TEST(Metrics, CountsConcurrentRecordsExactly) {
  Metrics metrics;
  {
    std::vector<std::jthread> threads;
    threads.reserve(4);
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&metrics] {
        for (int i = 0; i < 1000; ++i) {
          metrics.Record("healthz", 200, 0.0001);
        }
      });
    }
  }
  EXPECT_TRUE(
      Has(metrics.Render({}), R"(trainyard_http_requests_total{route="healthz",code="200"} 4000)"));
}

}  // namespace
}  // namespace trainyard::server
