#include "kube/tables.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trainyard::kube {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

struct DurationCase {
  Duration duration;
  std::string text;
};

class HumanDurationTest : public ::testing::TestWithParam<DurationCase> {};

TEST_P(HumanDurationTest, MatchesApimachinery) {
  EXPECT_EQ(HumanDuration(GetParam().duration), GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(
    Durations, HumanDurationTest,
    ::testing::Values(DurationCase{-5s, "<invalid>"}, DurationCase{-1s, "0s"},
                      DurationCase{0s, "0s"}, DurationCase{5s, "5s"}, DurationCase{119s, "119s"},
                      DurationCase{120s, "2m"}, DurationCase{182s, "3m2s"},
                      DurationCase{599s, "9m59s"}, DurationCase{10min, "10m"},
                      DurationCase{179min, "179m"}, DurationCase{3h, "3h"},
                      DurationCase{5h + 3min, "5h3m"}, DurationCase{8h, "8h"},
                      DurationCase{47h, "47h"}, DurationCase{48h, "2d"}, DurationCase{52h, "2d4h"},
                      DurationCase{24h * 8, "8d"}, DurationCase{24h * 400, "400d"},
                      DurationCase{24h * 730, "2y"}, DurationCase{24h * 740, "2y10d"},
                      DurationCase{24h * 365 * 9, "9y"}),
    [](const auto& tc) { return "T" + std::to_string(tc.index); });

TEST(TFJobTableTest, HasTheCrdColumnsAndPartialMetadata) {
  const TFJobRow row{.metadata = {.name = "mnist",
                                  .namespace_name = "team-a",
                                  .uid = "u",
                                  .resource_version = "7",
                                  .creation_timestamp = WallTime{}},
                     .state = "Running",
                     .replicas = "1 Chief, 2 Worker",
                     .job_id = "mnist",
                     .age = 182s};
  const json table = json::parse(TFJobTable({row}, 42));
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(table["metadata"]["resourceVersion"], "42");
  std::vector<std::string> columns;
  for (const json& column : table["columnDefinitions"]) {
    columns.push_back(column["name"].get<std::string>() + ":" +
                      std::to_string(column["priority"].get<int>()));
  }
  EXPECT_EQ(columns,
            (std::vector<std::string>{"Name:0", "State:0", "Age:0", "Replicas:1", "Job:1"}));
  EXPECT_EQ(table["columnDefinitions"][0]["format"], "name");
  EXPECT_EQ(table["rows"][0]["cells"],
            json::parse(R"(["mnist", "Running", "3m2s", "1 Chief, 2 Worker", "mnist"])"));
  EXPECT_EQ(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(table["rows"][0]["object"]["metadata"]["uid"], "u");
  EXPECT_FALSE(json::parse(TFJobTable({row}, 42, false))["rows"][0].contains("object"));
}

TEST(PodTableTest, LooksLikeKubectlGetPods) {
  const PodRow running{.pod = {.name = "mnist-chief-0",
                               .namespace_name = "team-a",
                               .phase = "Running",
                               .ready = true,
                               .restart_count = 1,
                               .node_name = "n1"},
                       .age = 5s};
  const PodRow crashing{
      .pod = {.name = "mnist-worker-0", .phase = "Running", .reason = "CrashLoopBackOff"},
      .age = 5s};
  const json table = json::parse(PodTable({running, crashing}, 1));
  EXPECT_EQ(table["rows"][0]["cells"],
            json::parse(R"(["mnist-chief-0", "1/1", "Running", "1", "5s", "n1"])"));
  EXPECT_EQ(table["rows"][1]["cells"],
            json::parse(R"(["mnist-worker-0", "0/1", "CrashLoopBackOff", "0", "5s", "<none>"])"));
}

TEST(EventTableTest, HasTheColumnsKubectlGetEventsPrints) {
  const Event event{.name = "mnist.120",
                    .namespace_name = "team-a",
                    .involved = {.api_version = "kubeflow.org/v1",
                                 .kind = "TFJob",
                                 .name = "mnist",
                                 .namespace_name = "team-a",
                                 .uid = "u"},
                    .reason = "Restarting",
                    .message = "worker-replica-0 is restarting",
                    .type = "Warning",
                    .time = WallTime{}};
  const json table = json::parse(EventTable({EventRow{.event = event, .age = 182s}}, 9));
  std::vector<std::string> columns;
  for (const json& column : table["columnDefinitions"]) {
    columns.push_back(column["name"].get<std::string>() + ":" +
                      std::to_string(column["priority"].get<int>()));
  }
  EXPECT_EQ(columns, (std::vector<std::string>{"Last Seen:0", "Type:0", "Reason:0", "Object:0",
                                               "Subobject:1", "Source:1", "Message:0",
                                               "First Seen:1", "Count:1", "Name:1"}));
  EXPECT_EQ(table["rows"][0]["cells"], json::parse(R"(["3m2s", "Warning", "Restarting",
      "tfjob/mnist", "", "trainyard", "worker-replica-0 is restarting", "3m2s", 1,
      "mnist.120"])"));
  EXPECT_EQ(table["rows"][0]["object"]["metadata"]["name"], "mnist.120");
  EXPECT_FALSE(
      json::parse(EventTable({EventRow{.event = event}}, 9, false))["rows"][0].contains("object"));
}

TEST(ReplicasTextTest, ListsTheCounts) {
  EXPECT_EQ(ReplicasText({{"Chief", 1}, {"Worker", 2}}), "1 Chief, 2 Worker");
  EXPECT_EQ(ReplicasText({}), "");
}

}  // namespace
}  // namespace trainyard::kube
