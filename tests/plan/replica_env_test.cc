// The environment variables of BuildClusterPlan besides TF_CONFIG and CLUSTER_SPEC.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "plan/cluster_plan.h"
#include "plan/plan_test_jobs.h"
#include "support/sample_jobs.h"

namespace trainyard::plan {
namespace {

using nlohmann::json;
using testing::EnvNames;
using testing::EnvOf;
using testing::Plan;

TEST(ReplicaEnv, SingleReplicaGetsExactlyTheseVariables) {
  const Result<std::vector<ReplicaLaunch>> launches =
      Plan(trainyard::testing::ValidRuntimeJob("baseline_job"));
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  const ReplicaLaunch& master = launches->at(0);
  EXPECT_EQ(master.task_name, "master-replica-0");
  EXPECT_EQ(EnvNames(master),
            (std::vector<std::string>{
                "TF_CONFIG", "CLUSTER_SPEC", "CLOUD_ML_JOB", "CLOUD_ML_JOB_ID", "MASTER_ADDR",
                "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK", "CUDA_VISIBLE_DEVICES",
                "STORAGE_EMULATOR_HOST", "CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE",
                "CLOUDSDK_AUTH_DISABLE_CREDENTIALS", "PYTHONPATH", "PYTHONUNBUFFERED",
                "TRAINYARD_JOB_DIR_URI"}));
  EXPECT_EQ(EnvOf(master, "CLOUD_ML_JOB_ID"), "baseline_job");
  EXPECT_EQ(EnvOf(master, "STORAGE_EMULATOR_HOST"), "http://127.0.0.1:8470");
  EXPECT_EQ(EnvOf(master, "CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"),
            "http://127.0.0.1:8470/storage/v1/");
  EXPECT_EQ(EnvOf(master, "CLOUDSDK_AUTH_DISABLE_CREDENTIALS"), "true");
  EXPECT_EQ(EnvOf(master, "PYTHONPATH"), "/data/jobs/p/custom_job/packages");
  EXPECT_EQ(EnvOf(master, "PYTHONUNBUFFERED"), "1");
  EXPECT_EQ(EnvOf(master, "CUDA_VISIBLE_DEVICES"), "");
}

TEST(ReplicaEnv, OptionalVariablesAreLeftOutWhenNotGiven) {
  PlanContext context = testing::Context();
  context.storage_emulator_host.clear();
  context.pythonpath.clear();
  const Result<std::vector<ReplicaLaunch>> launches =
      Plan(trainyard::testing::ValidRuntimeJob(), {}, context);
  ASSERT_TRUE(launches.ok());
  EXPECT_FALSE(EnvOf(launches->at(0), "STORAGE_EMULATOR_HOST").has_value());
  EXPECT_FALSE(EnvOf(launches->at(0), "CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE").has_value());
  EXPECT_FALSE(EnvOf(launches->at(0), "CLOUDSDK_AUTH_DISABLE_CREDENTIALS").has_value());
  EXPECT_FALSE(EnvOf(launches->at(0), "PYTHONPATH").has_value());
  EXPECT_FALSE(EnvOf(launches->at(0), "CLOUD_ML_TRIAL_ID").has_value());
  EXPECT_FALSE(EnvOf(launches->at(0), "CLOUD_ML_HP_METRIC_TAG").has_value());
  EXPECT_FALSE(EnvOf(launches->at(0), "TPU_CONFIG").has_value());
  EXPECT_FALSE(EnvOf(launches->at(0), "TRAINYARD_TOKEN").has_value());
}

TEST(ReplicaEnv, EveryReplicaGetsTheJobsOwnTokenWhenTheServerChecksTokens) {
  PlanContext context = testing::Context();
  context.access_token = "tyj.cA.ag.mac";
  context.access_token_file = "/data/jobs/p/j/job.token";
  context.project = "p";
  const Result<std::vector<ReplicaLaunch>> launches =
      Plan(trainyard::testing::ValidRuntimeJob(), {}, context);
  ASSERT_TRUE(launches.ok());
  for (const ReplicaLaunch& launch : *launches) {
    EXPECT_EQ(EnvOf(launch, "TRAINYARD_TOKEN"), "tyj.cA.ag.mac") << launch.task_name;
    // gcloud in the replica sends it too, to this server, in the job's project.
    EXPECT_EQ(EnvOf(launch, "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE"), "/data/jobs/p/j/job.token");
    EXPECT_FALSE(EnvOf(launch, "CLOUDSDK_AUTH_DISABLE_CREDENTIALS").has_value());
    EXPECT_EQ(EnvOf(launch, "CLOUDSDK_CORE_PROJECT"), "p");
  }
}

TEST(ReplicaEnv, ContextJobIdWinsOverTheJobs) {
  PlanContext context = testing::Context();
  context.job_id = "trial_job";
  const Result<std::vector<ReplicaLaunch>> launches =
      Plan(trainyard::testing::ValidRuntimeJob("baseline_job"), {}, context);
  ASSERT_TRUE(launches.ok());
  EXPECT_EQ(EnvOf(launches->at(0), "CLOUD_ML_JOB_ID"), "trial_job");
}

TEST(ReplicaEnv, TrialsGetTheirIdMetricTagFileAndHyperparameterArgs) {
  model::Job job = testing::CustomJob(1, 0, 0);
  PlanContext context = testing::Context();
  context.trial_id = "3";
  context.hp_metric_dir = "/data/jobs/p/custom_job/trial-3/hypertune";
  context.trial_args = {"--learning_rate=0.01", "--layers=3"};
  const Result<std::vector<ReplicaLaunch>> launches = Plan(job, {}, context);
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  for (const ReplicaLaunch& launch : *launches) {
    EXPECT_EQ(launch.argv,
              (std::vector<std::string>{"/usr/bin/python3", "-m", "trainer.task", "--epochs", "3",
                                        "--learning_rate=0.01", "--layers=3", "--job-dir",
                                        "/data/buckets/my-bucket/output"}));
    EXPECT_EQ(EnvOf(launch, "CLOUD_ML_TRIAL_ID"), "3");
    EXPECT_EQ(EnvOf(launch, "CLOUD_ML_HP_METRIC_TAG"), "training/hptuning/metric");
    EXPECT_EQ(EnvOf(launch, "CLOUD_ML_HP_METRIC_FILE"),
              context.hp_metric_dir + "/" + launch.task_name + ".metrics");
    EXPECT_EQ(json::parse(*EnvOf(launch, "TF_CONFIG"))["task"]["trial"], "3");
    EXPECT_EQ(json::parse(*EnvOf(launch, "CLUSTER_SPEC"))["task"]["trial"], "3");
  }
}

TEST(ReplicaEnv, MetricTagComesFromTheContextThenTheJob) {
  model::Job job = trainyard::testing::ValidRuntimeJob();
  job.training_input->hyperparameters =
      model::HyperparameterSpec{.hyperparameter_metric_tag = "val_accuracy"};
  PlanContext context = testing::Context();
  context.trial_id = "1";
  Result<std::vector<ReplicaLaunch>> launches = Plan(job, {}, context);
  ASSERT_TRUE(launches.ok());
  EXPECT_EQ(EnvOf(launches->at(0), "CLOUD_ML_HP_METRIC_TAG"), "val_accuracy");
  EXPECT_FALSE(EnvOf(launches->at(0), "CLOUD_ML_HP_METRIC_FILE").has_value());

  context.hp_metric_tag = "loss";
  launches = Plan(job, {}, context);
  ASSERT_TRUE(launches.ok());
  EXPECT_EQ(EnvOf(launches->at(0), "CLOUD_ML_HP_METRIC_TAG"), "loss");
}

TEST(ReplicaEnv, PyTorchRanksCoverMasterAndWorkersOnly) {
  std::vector<ReplicaPlacement> placements = testing::Placements(5);
  placements[0].host = "10.0.0.5";
  const Result<std::vector<ReplicaLaunch>> launches = Plan(testing::CustomJob(2, 1, 1), placements);
  ASSERT_TRUE(launches.ok());
  const char* ranks[] = {"0", "1", "2"};
  for (std::size_t i = 0; i < 3; ++i) {
    const ReplicaLaunch& launch = launches->at(i);
    EXPECT_EQ(EnvOf(launch, "MASTER_ADDR"), "10.0.0.5") << launch.task_name;
    EXPECT_EQ(EnvOf(launch, "MASTER_PORT"), "29500");
    EXPECT_EQ(EnvOf(launch, "WORLD_SIZE"), "3");
    EXPECT_EQ(EnvOf(launch, "RANK"), ranks[i]);
    EXPECT_EQ(EnvOf(launch, "LOCAL_RANK"), "0");
  }
  for (std::size_t i = 3; i < 5; ++i) {
    EXPECT_FALSE(EnvOf(launches->at(i), "RANK").has_value()) << launches->at(i).task_name;
    EXPECT_FALSE(EnvOf(launches->at(i), "MASTER_ADDR").has_value());
  }
  EXPECT_EQ(json::parse(*EnvOf(launches->at(0), "TF_CONFIG"))["cluster"]["chief"],
            json::array({"10.0.0.5:2222"}));
}

model::Job GpuJob() {
  model::Job job = trainyard::testing::ValidRuntimeJob();
  job.training_input->scale_tier = model::ScaleTier::kCustom;
  job.training_input->master_type = "n1-standard-16";
  job.training_input->master_config = model::ReplicaConfig{
      .accelerator_config = model::AcceleratorConfig{.count = 4, .type = "NVIDIA_TESLA_T4"}};
  return job;
}

TEST(ReplicaEnv, CudaVisibleDevicesListsThePlacedDevices) {
  std::vector<ReplicaPlacement> placements = testing::Placements(1);
  placements[0].device_indices = {0, 2, 5, 7};
  const Result<std::vector<ReplicaLaunch>> launches = Plan(GpuJob(), placements);
  ASSERT_TRUE(launches.ok());
  EXPECT_EQ(EnvOf(launches->at(0), "CUDA_VISIBLE_DEVICES"), "0,2,5,7");
  EXPECT_FALSE(EnvOf(launches->at(0), "TRAINYARD_EMULATED_ACCELERATORS").has_value());
}

TEST(ReplicaEnv, EmulatedDevicesAreHiddenAndNamed) {
  std::vector<ReplicaPlacement> placements = testing::Placements(1);
  placements[0].device_indices = {0, 1, 2, 3};
  placements[0].emulated = true;
  const Result<std::vector<ReplicaLaunch>> launches = Plan(GpuJob(), placements);
  ASSERT_TRUE(launches.ok());
  EXPECT_EQ(EnvOf(launches->at(0), "CUDA_VISIBLE_DEVICES"), "");
  EXPECT_EQ(EnvOf(launches->at(0), "TRAINYARD_EMULATED_ACCELERATORS"), "NVIDIA_TESLA_T4:4");
}

struct TpuCase {
  std::string name;
  std::function<void(model::TrainingInput&)> edit;
  std::string tpu_config;
};

class TpuConfigTest : public ::testing::TestWithParam<TpuCase> {};

// docs/reference/ai-platform-training.md §6: the master (which drives the TPU) and the TPU worker
// get TPU_CONFIG.
TEST_P(TpuConfigTest, GoesToTheMasterAndTheTpuWorker) {
  model::Job job = trainyard::testing::ValidRuntimeJob("tpu_job");
  job.training_input->runtime_version = "2.2";
  GetParam().edit(*job.training_input);
  const Result<std::vector<ReplicaLaunch>> launches = Plan(job);
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  ASSERT_EQ(launches->size(), 2u);
  for (const ReplicaLaunch& launch : *launches) {
    EXPECT_EQ(EnvOf(launch, "TPU_CONFIG"), GetParam().tpu_config) << launch.task_name;
  }
  EXPECT_EQ(launches->at(1).task_name, "worker-replica-0");
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, TpuConfigTest,
    ::testing::Values(
        TpuCase{"BasicTpu",
                [](model::TrainingInput& in) { in.scale_tier = model::ScaleTier::kBasicTpu; },
                R"({"project":"trainyard","zone":"us-central1-b","tpu_node_name":"tpu_job-tpu"})"},
        TpuCase{
            "CustomTpuV3InEurope",
            [](model::TrainingInput& in) {
              in.scale_tier = model::ScaleTier::kCustom;
              in.region = "europe-west4";
              in.master_type = "n1-highcpu-16";
              in.worker_type = "cloud_tpu";
              in.worker_count = 1;
              in.worker_config = model::ReplicaConfig{
                  .accelerator_config = model::AcceleratorConfig{.count = 8, .type = "TPU_V3"}};
            },
            R"({"project":"trainyard","zone":"europe-west4-a","tpu_node_name":"tpu_job-tpu"})"}),
    [](const auto& tc) { return tc.param.name; });

TEST(ReplicaEnv, GpuJobsGetNoTpuConfig) {
  const Result<std::vector<ReplicaLaunch>> launches = Plan(GpuJob());
  ASSERT_TRUE(launches.ok());
  EXPECT_FALSE(EnvOf(launches->at(0), "TPU_CONFIG").has_value());
}

}  // namespace
}  // namespace trainyard::plan
