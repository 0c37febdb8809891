// Issue #34's policy through the real daemon (`trainyard serve` as a child process): what an admin
// sets reaches the refusal at create, the cluster view and /metrics, and survives a SIGKILL and
// restart.
#include <csignal>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fakes/temp_dir.h"
#include "integration/http_client.h"
#include "integration/live_server.h"
#include "integration/serve_process.h"

namespace trainyard::testing {
namespace {

using nlohmann::json;

constexpr char kQuota[] = "/trainyard/v1/projects/proj/quota";

TEST(SharingRestartTest, ThePolicyReachesTheQueueAndMetricsAndSurvivesARestart) {
  TempDir dir;
  const std::string data = dir.File("data");
  auto serve = std::make_unique<ServeProcess>(data);
  ASSERT_TRUE(serve->started()) << serve->output();
  auto client = std::make_unique<HttpClient>(serve->port());

  const json quota = {{"project", "proj"},
                      {"accelerators", json::object()},
                      {"cpus", 2},
                      {"memory", "8Gi"},
                      {"weight", 3}};
  ASSERT_EQ(client->Send("PUT", kQuota, quota.dump()).status, 200);
  ASSERT_EQ(client->Send("PUT", "/trainyard/v1/priorityClasses/high", R"({"value":900})").status,
            200);
  EXPECT_EQ(client->Post(JobsPath(), ValidJob("big").dump()).status, 429);

  const json cluster = Body(client->Get("/trainyard/v1/projects/proj/cluster"));
  ASSERT_TRUE(cluster.contains("projects")) << cluster.dump();
  ASSERT_EQ(cluster["projects"].size(), 1U) << cluster.dump();
  EXPECT_EQ(cluster["projects"][0]["quota"], quota);
  EXPECT_EQ(cluster["projects"][0]["use"]["jobs"], 0);
  const std::string metrics = client->Get("/metrics").body;
  EXPECT_NE(metrics.find("trainyard_project_quota{project=\"proj\",resource=\"cpus\"} 2\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("trainyard_project_weight{project=\"proj\"} 3\n"), std::string::npos);

  client.reset();
  serve->Signal(SIGKILL);
  EXPECT_EQ(serve->Wait(), -SIGKILL);
  serve = std::make_unique<ServeProcess>(data);
  ASSERT_TRUE(serve->started()) << serve->output();
  client = std::make_unique<HttpClient>(serve->port());

  EXPECT_EQ(Body(client->Get(kQuota)), quota);
  EXPECT_EQ(Body(client->Get("/trainyard/v1/priorityClasses")),
            (json{{"priorityClasses", {{"high", 900}}}}));
  const ClientResponse refused = client->Post(JobsPath(), ValidJob("big").dump());
  EXPECT_EQ(refused.status, 429) << refused.body;
  EXPECT_EQ(client->Get(JobPath("big")).status, 404);
}

}  // namespace
}  // namespace trainyard::testing
