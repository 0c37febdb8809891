#include "plan/cluster_plan.h"

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "plan/plan_test_jobs.h"
#include "support/sample_jobs.h"

namespace trainyard::plan {
namespace {

using nlohmann::json;
using testing::EnvOf;
using testing::Plan;

json ParsedEnv(const ReplicaLaunch& launch, std::string_view name) {
  const std::optional<std::string> value = EnvOf(launch, name);
  EXPECT_TRUE(value.has_value()) << launch.task_name << " has no " << name;
  return value ? json::parse(*value) : json();
}

struct NamingCase {
  std::string name;
  std::function<void(model::TrainingInput&)> edit;
  std::string primary;  // TF_CONFIG's name for the master
};

class PrimaryNameTest : public ::testing::TestWithParam<NamingCase> {};

TEST_P(PrimaryNameTest, NamesTheMasterInTfConfigButNotInClusterSpec) {
  model::Job job = trainyard::testing::ValidRuntimeJob();
  GetParam().edit(*job.training_input);
  const Result<std::vector<ReplicaLaunch>> launches = Plan(job);
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  ASSERT_EQ(launches->size(), 1u);
  const json tf_config = ParsedEnv(launches->at(0), "TF_CONFIG");
  const std::string& primary = GetParam().primary;
  EXPECT_EQ(tf_config["cluster"], json({{primary, json::array({"127.0.0.1:2222"})}}));
  EXPECT_EQ(tf_config["task"], json({{"type", primary}, {"index", 0}}));
  const json cluster_spec = ParsedEnv(launches->at(0), "CLUSTER_SPEC");
  EXPECT_EQ(cluster_spec["cluster"], json({{"master", json::array({"127.0.0.1:2222"})}}));
  EXPECT_EQ(cluster_spec["task"], json({{"type", "master"}, {"index", 0}}));
}

// docs/reference/ai-platform-training.md §7.2: runtime >= 2.1 says chief; containers say master
// unless useChiefInTfConfig.
INSTANTIATE_TEST_SUITE_P(
    Reference, PrimaryNameTest,
    ::testing::Values(
        NamingCase{"Runtime211", [](model::TrainingInput&) {}, "chief"},
        NamingCase{"Runtime21", [](model::TrainingInput& in) { in.runtime_version = "2.1"; },
                   "chief"},
        NamingCase{"Runtime115", [](model::TrainingInput& in) { in.runtime_version = "1.15"; },
                   "master"},
        NamingCase{"Runtime115IgnoresUseChief",
                   [](model::TrainingInput& in) {
                     in.runtime_version = "1.15";
                     in.use_chief_in_tf_config = true;
                   },
                   "master"},
        NamingCase{"RuntimeNotInCatalog",
                   [](model::TrainingInput& in) { in.runtime_version = "2.15"; }, "chief"},
        NamingCase{"RuntimeUnset", [](model::TrainingInput& in) { in.runtime_version.clear(); },
                   "chief"},
        NamingCase{"Container",
                   [](model::TrainingInput& in) {
                     in.master_config = model::ReplicaConfig{.image_uri = "gcr.io/p/t",
                                                             .container_command = {"/bin/t"}};
                   },
                   "master"},
        NamingCase{"ContainerUseChief",
                   [](model::TrainingInput& in) {
                     in.master_config = model::ReplicaConfig{.image_uri = "gcr.io/p/t",
                                                             .container_command = {"/bin/t"}};
                     in.use_chief_in_tf_config = true;
                   },
                   "chief"}),
    [](const auto& tc) { return tc.param.name; });

// The job's TrainingInput as every replica sees it (TF_CONFIG.job, CLOUD_ML_JOB).
constexpr std::string_view kCustomJobInput =
    R"({"scale_tier":"CUSTOM","master_type":"n1-standard-4","worker_type":"n1-standard-4",)"
    R"("worker_count":"2","parameter_server_type":"n1-standard-4","parameter_server_count":"1",)"
    R"("evaluator_type":"n1-standard-4","evaluator_count":"1",)"
    R"("package_uris":["gs://my-bucket/trainer-0.1.tar.gz"],"python_module":"trainer.task",)"
    R"("args":["--epochs","3"],"region":"us-central1","job_dir":"gs://my-bucket/output",)"
    R"("runtime_version":"2.11","python_version":"3.7"})";

TEST(ClusterPlan, EveryReplicaSeesTheSameClusterAndItsOwnTask) {
  const Result<std::vector<ReplicaLaunch>> launches = Plan(testing::CustomJob(2, 1, 1));
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  const char* tasks[] = {
      R"({"type": "chief", "index": 0})",     R"({"type": "worker", "index": 0})",
      R"({"type": "worker", "index": 1})",    R"({"type": "ps", "index": 0})",
      R"({"type": "evaluator", "index": 0})",
  };
  ASSERT_EQ(launches->size(), std::size(tasks));
  const json job = json::parse(kCustomJobInput);
  for (std::size_t i = 0; i < launches->size(); ++i) {
    const ReplicaLaunch& launch = launches->at(i);
    const json expected = json::parse(R"({"cluster": {"chief": ["127.0.0.1:2222"],
                                                      "worker": ["127.0.0.1:2223", "127.0.0.1:2224"],
                                                      "ps": ["127.0.0.1:2225"]},
                                          "environment": "cloud"})");
    json tf_config = ParsedEnv(launch, "TF_CONFIG");
    EXPECT_EQ(tf_config["task"], json::parse(tasks[i])) << launch.task_name;
    EXPECT_EQ(tf_config["job"], job) << launch.task_name;
    tf_config.erase("task");
    tf_config.erase("job");
    EXPECT_EQ(tf_config, expected) << launch.task_name;
    EXPECT_EQ(EnvOf(launch, "CLOUD_ML_JOB"), std::string(kCustomJobInput));
    EXPECT_EQ(EnvOf(launch, "CLOUD_ML_JOB_ID"), "custom_job");
  }
  EXPECT_EQ(launches->at(4).task_name, "evaluator-replica-0");
  EXPECT_EQ(launches->at(4).role, Role::kEvaluator);
}

TEST(ClusterPlan, TfConfigTextIsDeterministic) {
  const Result<std::vector<ReplicaLaunch>> launches = Plan(testing::CustomJob(1, 0, 0));
  ASSERT_TRUE(launches.ok());
  EXPECT_EQ(EnvOf(launches->at(1), "TF_CONFIG"),
            R"({"cluster":{"chief":["127.0.0.1:2222"],"worker":["127.0.0.1:2223"]},)"
            R"("task":{"type":"worker","index":0},"job":{"scale_tier":"CUSTOM",)"
            R"("master_type":"n1-standard-4","worker_type":"n1-standard-4","worker_count":"1",)"
            R"("package_uris":["gs://my-bucket/trainer-0.1.tar.gz"],)"
            R"("python_module":"trainer.task","args":["--epochs","3"],"region":"us-central1",)"
            R"("job_dir":"gs://my-bucket/output","runtime_version":"2.11",)"
            R"("python_version":"3.7"},"environment":"cloud"})");
}

TEST(ClusterPlan, ClusterSpecSaysMasterListsEvaluatorsAndCarriesTheJobAsText) {
  const Result<std::vector<ReplicaLaunch>> launches = Plan(testing::CustomJob(2, 1, 1));
  ASSERT_TRUE(launches.ok());
  const json spec = ParsedEnv(launches->at(3), "CLUSTER_SPEC");
  EXPECT_EQ(spec, json({{"cluster", json::parse(R"({"master": ["127.0.0.1:2222"],
                                                    "worker": ["127.0.0.1:2223", "127.0.0.1:2224"],
                                                    "ps": ["127.0.0.1:2225"],
                                                    "evaluator": ["127.0.0.1:2226"]})")},
                        {"task", {{"type", "ps"}, {"index", 0}}},
                        {"job", std::string(kCustomJobInput)},
                        {"environment", "cloud"}}));
}

TEST(ClusterPlan, RuntimeReplicasRunThePythonModuleWithTheJobDirMapped) {
  const Result<std::vector<ReplicaLaunch>> launches = Plan(testing::CustomJob(1, 1, 0));
  ASSERT_TRUE(launches.ok());
  for (const ReplicaLaunch& launch : *launches) {
    EXPECT_EQ(launch.argv,
              (std::vector<std::string>{"/usr/bin/python3", "-m", "trainer.task", "--epochs", "3",
                                        "--job-dir", "/data/buckets/my-bucket/output"}))
        << launch.task_name;
    EXPECT_EQ(EnvOf(launch, "TRAINYARD_JOB_DIR_URI"), "gs://my-bucket/output");
  }
}

TEST(ClusterPlan, LocalJobDirIsPassedAsIsAndEmptyOneAddsNoFlag) {
  model::Job job = trainyard::testing::ValidRuntimeJob();
  job.training_input->job_dir = "/srv/out";
  Result<std::vector<ReplicaLaunch>> launches = Plan(job);
  ASSERT_TRUE(launches.ok());
  EXPECT_EQ(launches->at(0).argv,
            (std::vector<std::string>{"/usr/bin/python3", "-m", "trainer.task", "--job-dir",
                                      "/srv/out"}));
  EXPECT_FALSE(EnvOf(launches->at(0), "TRAINYARD_JOB_DIR_URI").has_value());

  job.training_input->job_dir.clear();
  launches = Plan(job);
  ASSERT_TRUE(launches.ok());
  EXPECT_EQ(launches->at(0).argv,
            (std::vector<std::string>{"/usr/bin/python3", "-m", "trainer.task"}));
}

TEST(ClusterPlan, GcsJobDirNeedsABucketStoreAndMayNotEscape) {
  model::Job job = trainyard::testing::ValidRuntimeJob();
  PlanContext no_mount = testing::Context();
  no_mount.gcs_mount.clear();
  EXPECT_EQ(Plan(job, {}, no_mount).status().code(), Code::kFailedPrecondition);

  job.training_input->job_dir = "gs://my-bucket/../../etc";
  EXPECT_EQ(Plan(job).status().code(), Code::kInvalidArgument);
}

TEST(ClusterPlan, ContainersGetTheirArgsUserArgsTrialArgsThenJobDirAsTheImagesCmd) {
  model::Job job = testing::ContainerJob({"/opt/venv/bin/python", "-m", "trainer"});
  job.training_input->args = {"--user"};
  PlanContext context = testing::Context();
  context.trial_id = "2";
  context.trial_args = {"--lr=0.5"};
  const Result<std::vector<ReplicaLaunch>> launches = Plan(job, {}, context);
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  EXPECT_TRUE(launches->at(0).argv.empty());
  ASSERT_TRUE(launches->at(0).container.has_value());
  EXPECT_EQ(*launches->at(0).container,
            (ContainerLaunch{.image = "gcr.io/p/trainer",
                             .command = {"/opt/venv/bin/python", "-m", "trainer"},
                             .args = {"--steps", "10", "--user", "--lr=0.5", "--job-dir",
                                      "/data/buckets/my-bucket/output"}}));
}

// docs/reference/ai-platform-training.md §2.3, "Command/args semantics" (Kubernetes):
// containerCommand replaces the ENTRYPOINT, containerArgs (then args, trial flags and --job-dir)
// the CMD; nothing given keeps the image's.
struct CommandArgsCase {
  std::string name;
  std::vector<std::string> command;
  std::vector<std::string> container_args;
  std::vector<std::string> args;
  std::string job_dir;
  ContainerLaunch want;
};

class ContainerCommandArgsTest : public ::testing::TestWithParam<CommandArgsCase> {};

TEST_P(ContainerCommandArgsTest, FollowKubernetesRules) {
  const CommandArgsCase& tc = GetParam();
  model::Job job = testing::ContainerJob(tc.command);
  job.training_input->master_config->container_args = tc.container_args;
  job.training_input->args = tc.args;
  job.training_input->job_dir = tc.job_dir;
  const Result<std::vector<ReplicaLaunch>> launches = Plan(job);
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  ASSERT_TRUE(launches->at(0).container.has_value());
  EXPECT_EQ(*launches->at(0).container, tc.want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ContainerCommandArgsTest,
    ::testing::Values(
        CommandArgsCase{
            "NeitherKeepsTheImageDefaults", {}, {}, {}, "", {"gcr.io/p/trainer", {}, {}}},
        CommandArgsCase{"CommandOnlyDropsTheImageCmd",
                        {"/bin/train"},
                        {},
                        {},
                        "",
                        {"gcr.io/p/trainer", {"/bin/train"}, {}}},
        CommandArgsCase{"ContainerArgsOnlyReachTheImageEntrypoint",
                        {},
                        {"--steps", "5"},
                        {},
                        "",
                        {"gcr.io/p/trainer", {}, {"--steps", "5"}}},
        CommandArgsCase{"Both",
                        {"/bin/train", "-v"},
                        {"--steps", "5"},
                        {},
                        "",
                        {"gcr.io/p/trainer", {"/bin/train", "-v"}, {"--steps", "5"}}},
        CommandArgsCase{"UserArgsReachTheImageEntrypoint",
                        {},
                        {},
                        {"--epochs", "2"},
                        "",
                        {"gcr.io/p/trainer", {}, {"--epochs", "2"}}},
        CommandArgsCase{"JobDirAloneReplacesTheImageCmd",
                        {},
                        {},
                        {},
                        "gs://my-bucket/out",
                        {"gcr.io/p/trainer", {}, {"--job-dir", "/data/buckets/my-bucket/out"}}}),
    [](const auto& tc) { return tc.param.name; });

// A container job running /bin/train with a master and one worker.
model::Job ContainerJobWithAWorker() {
  model::Job job = testing::ContainerJob({"/bin/train"});
  job.training_input->scale_tier = model::ScaleTier::kCustom;
  job.training_input->master_type = "n1-standard-4";
  job.training_input->worker_type = "n1-standard-4";
  job.training_input->worker_count = 1;
  return job;
}

TEST(ClusterPlan, WorkersRunTheMastersContainer) {
  const model::Job job = ContainerJobWithAWorker();
  const Result<std::vector<ReplicaLaunch>> launches = Plan(job);
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  ASSERT_TRUE(launches->at(1).container.has_value());
  EXPECT_EQ(launches->at(1).container, launches->at(0).container);
}

TEST(ClusterPlan, AWorkerImageOfItsOwnIsRunWithItsOwnCommand) {
  model::Job job = ContainerJobWithAWorker();
  job.training_input->worker_config = model::ReplicaConfig{.image_uri = "gcr.io/p/worker"};
  const Result<std::vector<ReplicaLaunch>> launches = Plan(job);
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  ASSERT_TRUE(launches->at(1).container.has_value());
  EXPECT_EQ(launches->at(1).container->image, "gcr.io/p/worker");
  EXPECT_TRUE(launches->at(1).container->command.empty());
}

}  // namespace
}  // namespace trainyard::plan
