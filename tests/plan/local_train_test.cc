#include "plan/local_train.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trainyard::plan {
namespace {

using nlohmann::json;

LocalTrainOptions Options() {
  LocalTrainOptions options;
  options.module_name = "trainer.task";
  options.user_args = {"--foo", "bar"};
  options.job_dir = "/tmp/jd";
  return options;
}

// The only variable gcloud adds (docs/reference/ai-platform-training.md §8), parsed.
json TfConfigOf(const ReplicaLaunch& launch) {
  EXPECT_EQ(launch.env.size(), 1u) << launch.task_name;
  EXPECT_EQ(launch.env.at(0).first, "TF_CONFIG");
  return json::parse(launch.env.at(0).second);
}

std::vector<std::string> TaskNames(const std::vector<ReplicaLaunch>& launches) {
  std::vector<std::string> names;
  names.reserve(launches.size());
  for (const ReplicaLaunch& launch : launches) {
    names.push_back(launch.task_name);
  }
  return names;
}

TEST(LocalTrain, NotDistributedRunsOneProcessWithAnEmptyTaskAndCluster) {
  const std::vector<ReplicaLaunch> launches = BuildLocalTrainPlan(Options());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].role, Role::kMaster);
  EXPECT_EQ(launches[0].argv, (std::vector<std::string>{"python3", "-m", "trainer.task", "--foo",
                                                        "bar", "--job-dir", "/tmp/jd"}));
  ASSERT_EQ(launches[0].env.size(), 1u);
  EXPECT_EQ(launches[0].env[0].second,
            R"({"job":{"job_name":"trainer.task","args":["--foo","bar","--job-dir","/tmp/jd"]},)"
            R"("task":{},"cluster":{},"environment":"cloud"})");
}

TEST(LocalTrain, CountsAreIgnoredWithoutDistributed) {
  LocalTrainOptions options = Options();
  options.worker_count = 5;
  options.evaluator_count = 2;
  EXPECT_EQ(BuildLocalTrainPlan(options).size(), 1u);
}

TEST(LocalTrain, NoJobDirAddsNoFlag) {
  LocalTrainOptions options = Options();
  options.job_dir.clear();
  options.python = "/usr/bin/python3";
  const std::vector<ReplicaLaunch> launches = BuildLocalTrainPlan(options);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].argv,
            (std::vector<std::string>{"/usr/bin/python3", "-m", "trainer.task", "--foo", "bar"}));
  EXPECT_EQ(TfConfigOf(launches[0])["job"]["args"], json::parse(R"(["--foo","bar"])"));
}

// docs/reference/ai-platform-training.md §8's captured example: W=2, P=1, E=1.
TEST(LocalTrain, DistributedMatchesGcloudsCapturedExample) {
  LocalTrainOptions options = Options();
  options.distributed = true;
  options.worker_count = 2;
  options.parameter_server_count = 1;
  options.evaluator_count = 1;
  const std::vector<ReplicaLaunch> launches = BuildLocalTrainPlan(options);
  ASSERT_EQ(TaskNames(launches),
            (std::vector<std::string>{"master-replica-0", "ps-replica-0", "worker-replica-0",
                                      "worker-replica-1", "evaluator-replica-0"}));

  const json cluster = json::parse(
      R"({"chief": ["localhost:27182"], "ps": ["localhost:27183"],
          "worker": ["localhost:27184", "localhost:27185"]})");
  const json job = json::parse(
      R"({"job_name": "trainer.task", "args": ["--foo", "bar", "--job-dir", "/tmp/jd"]})");
  const char* tasks[] = {
      R"({"type": "chief", "index": 0})",     R"({"type": "ps", "index": 0})",
      R"({"type": "worker", "index": 0})",    R"({"type": "worker", "index": 1})",
      R"({"type": "evaluator", "index": 0})",
  };
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const json expected = {{"job", job},
                           {"task", json::parse(tasks[i])},
                           {"cluster", cluster},
                           {"environment", "cloud"}};
    EXPECT_EQ(TfConfigOf(launches[i]), expected) << launches[i].task_name;
    EXPECT_EQ(launches[i].argv, launches[0].argv);
  }
  EXPECT_EQ(TfConfigOf(launches[3]), json::parse(R"({"job": {"job_name": "trainer.task",
                                    "args": ["--foo", "bar", "--job-dir", "/tmp/jd"]},
                            "task": {"type": "worker", "index": 1},
                            "cluster": {"chief": ["localhost:27182"], "ps": ["localhost:27183"],
                                        "worker": ["localhost:27184", "localhost:27185"]},
                            "environment": "cloud"})"));
}

TEST(LocalTrain, DistributedDefaultsAreTwoWorkersAndTwoParameterServers) {
  LocalTrainOptions options = Options();
  options.distributed = true;
  options.start_port = 3000;
  options.primary_name = "master";
  const std::vector<ReplicaLaunch> launches = BuildLocalTrainPlan(options);
  ASSERT_EQ(TaskNames(launches),
            (std::vector<std::string>{"master-replica-0", "ps-replica-0", "ps-replica-1",
                                      "worker-replica-0", "worker-replica-1"}));
  const json config = TfConfigOf(launches[0]);
  EXPECT_EQ(config["cluster"], json::parse(R"({"master": ["localhost:3000"],
                            "ps": ["localhost:3001", "localhost:3002"],
                            "worker": ["localhost:3003", "localhost:3004"]})"));
  EXPECT_EQ(config["task"], json::parse(R"({"type": "master", "index": 0})"));
}

TEST(LocalTrain, DistributedWithNoParameterServersKeepsAnEmptyPsList) {
  LocalTrainOptions options = Options();
  options.distributed = true;
  options.worker_count = 1;
  options.parameter_server_count = 0;
  const std::vector<ReplicaLaunch> launches = BuildLocalTrainPlan(options);
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(TfConfigOf(launches[1])["cluster"],
            json::parse(R"({"chief": ["localhost:27182"], "ps": [],
                            "worker": ["localhost:27183"]})"));
}

}  // namespace
}  // namespace trainyard::plan
