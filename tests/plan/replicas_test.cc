#include "plan/replicas.h"

#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "model/job.h"
#include "support/build_paths.h"

namespace trainyard::plan {
namespace {

using model::ScaleTier;

// One replica as "task_name machine_type accelerator:count" (":0" when none).
std::string Describe(const ReplicaShape& shape) {
  return shape.task_name + " " + shape.machine_type + " " + shape.accelerator + ":" +
         std::to_string(shape.accelerator_count);
}

std::vector<std::string> Describe(const std::vector<ReplicaShape>& shapes) {
  std::vector<std::string> out;
  out.reserve(shapes.size());
  for (const ReplicaShape& shape : shapes) {
    out.push_back(Describe(shape));
  }
  return out;
}

TEST(RoleNames, AreTheWordsOfTaskNames) {
  EXPECT_EQ(RoleName(Role::kMaster), "master");
  EXPECT_EQ(RoleName(Role::kWorker), "worker");
  EXPECT_EQ(RoleName(Role::kParameterServer), "ps");
  EXPECT_EQ(RoleName(Role::kEvaluator), "evaluator");
  EXPECT_EQ(TaskName(Role::kMaster, 0), "master-replica-0");
  EXPECT_EQ(TaskName(Role::kWorker, 1), "worker-replica-1");
  EXPECT_EQ(TaskName(Role::kParameterServer, 0), "ps-replica-0");
  EXPECT_EQ(TaskName(Role::kEvaluator, 2), "evaluator-replica-2");
}

struct TierCase {
  std::string name;
  ScaleTier tier;
  std::vector<std::string> replicas;  // Describe() of each, in order
};

class ScaleTierTest : public ::testing::TestWithParam<TierCase> {};

TEST_P(ScaleTierTest, ExpandsFromTheCatalog) {
  model::TrainingInput input;
  input.scale_tier = GetParam().tier;
  const Result<std::vector<ReplicaShape>> shapes =
      ExpandReplicas(input, catalog::Catalog::Builtin());
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  EXPECT_EQ(Describe(*shapes), GetParam().replicas);
}

std::vector<std::string> Repeat(const std::string& role, int count, const std::string& rest) {
  std::vector<std::string> out;
  out.reserve(count);
  for (int i = 0; i < count; ++i) {
    std::string line = role;
    line.append("-replica-").append(std::to_string(i)).append(" ").append(rest);
    out.push_back(std::move(line));
  }
  return out;
}

std::vector<std::string> Concat(std::vector<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (auto& part : parts) {
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

// catalog/data/scale_tiers.json: legacy machine types, accelerators built into *_gpu/cloud_tpu.
INSTANTIATE_TEST_SUITE_P(
    Catalog, ScaleTierTest,
    ::testing::Values(
        TierCase{"Basic", ScaleTier::kBasic, {"master-replica-0 standard :0"}},
        TierCase{
            "BasicGpu", ScaleTier::kBasicGpu, {"master-replica-0 standard_gpu NVIDIA_TESLA_K80:1"}},
        TierCase{"BasicTpu",
                 ScaleTier::kBasicTpu,
                 {"master-replica-0 standard :0", "worker-replica-0 cloud_tpu TPU_V2:8"}},
        TierCase{"Standard1", ScaleTier::kStandard1,
                 Concat({{"master-replica-0 complex_model_s :0"},
                         Repeat("worker", 4, "complex_model_s :0"),
                         Repeat("ps", 3, "standard :0")})},
        TierCase{"Premium1", ScaleTier::kPremium1,
                 Concat({{"master-replica-0 complex_model_m :0"},
                         Repeat("worker", 19, "complex_model_m :0"),
                         Repeat("ps", 11, "large_model :0")})}),
    [](const auto& tc) { return tc.param.name; });

model::ReplicaConfig WithAccelerator(std::string type, int count) {
  model::ReplicaConfig config;
  config.accelerator_config = model::AcceleratorConfig{.count = count, .type = std::move(type)};
  return config;
}

TEST(ExpandReplicas, CustomListsMasterWorkersParameterServersThenEvaluators) {
  model::TrainingInput input;
  input.scale_tier = ScaleTier::kCustom;
  input.master_type = "n1-standard-8";
  input.master_config = WithAccelerator("NVIDIA_TESLA_T4", 2);
  input.worker_type = "n1-highmem-8";
  input.worker_count = 2;
  input.worker_config = WithAccelerator("ACCELERATOR_TYPE_UNSPECIFIED", 0);
  input.parameter_server_type = "n1-standard-4";
  input.parameter_server_count = 1;
  input.evaluator_type = "n1-standard-4";
  input.evaluator_count = 2;

  const Result<std::vector<ReplicaShape>> shapes =
      ExpandReplicas(input, catalog::Catalog::Builtin());
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  EXPECT_EQ(Describe(*shapes), (std::vector<std::string>{
                                   "master-replica-0 n1-standard-8 NVIDIA_TESLA_T4:2",
                                   "worker-replica-0 n1-highmem-8 :0",
                                   "worker-replica-1 n1-highmem-8 :0",
                                   "ps-replica-0 n1-standard-4 :0",
                                   "evaluator-replica-0 n1-standard-4 :0",
                                   "evaluator-replica-1 n1-standard-4 :0",
                               }));
  EXPECT_EQ((*shapes)[2].role, Role::kWorker);
  EXPECT_EQ((*shapes)[2].index, 1);
  EXPECT_EQ((*shapes)[3].role, Role::kParameterServer);
  EXPECT_EQ((*shapes)[5].role, Role::kEvaluator);
  EXPECT_EQ((*shapes)[5].index, 1);
}

TEST(ExpandReplicas, TpuWorkerTakesItsAcceleratorConfigOverTheBuiltinOne) {
  model::TrainingInput input;
  input.scale_tier = ScaleTier::kCustom;
  input.master_type = "n1-highcpu-16";
  input.worker_type = "cloud_tpu";
  input.worker_count = 1;
  input.worker_config = WithAccelerator("TPU_V3", 8);

  const Result<std::vector<ReplicaShape>> shapes =
      ExpandReplicas(input, catalog::Catalog::Builtin());
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  EXPECT_EQ(Describe(*shapes), (std::vector<std::string>{"master-replica-0 n1-highcpu-16 :0",
                                                         "worker-replica-0 cloud_tpu TPU_V3:8"}));
}

TEST(ExpandReplicas, OtherRolesWithoutAnImageRunTheMastersContainer) {
  model::TrainingInput input;
  input.scale_tier = ScaleTier::kCustom;
  input.master_type = "n1-standard-4";
  input.master_config = model::ReplicaConfig{.image_uri = "gcr.io/p/trainer",
                                             .container_command = {"python3", "-m", "t"},
                                             .container_args = {"--epochs=1"}};
  input.worker_type = "n1-standard-4";
  input.worker_count = 1;
  input.worker_config = WithAccelerator("NVIDIA_TESLA_T4", 1);
  input.worker_config->container_args = {"--worker"};
  input.parameter_server_type = "n1-standard-4";
  input.parameter_server_count = 1;
  input.parameter_server_config =
      model::ReplicaConfig{.image_uri = "gcr.io/p/ps", .container_command = {"/bin/ps-server"}};
  input.evaluator_type = "n1-standard-4";
  input.evaluator_count = 1;

  const Result<std::vector<ReplicaShape>> shapes =
      ExpandReplicas(input, catalog::Catalog::Builtin());
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  ASSERT_EQ(shapes->size(), 4u);
  const model::ReplicaConfig& worker = (*shapes)[1].config;
  EXPECT_EQ(worker.image_uri, "gcr.io/p/trainer");
  EXPECT_EQ(worker.container_command, (std::vector<std::string>{"python3", "-m", "t"}));
  EXPECT_EQ(worker.container_args, (std::vector<std::string>{"--worker"}));  // its own
  EXPECT_EQ(worker.accelerator_config->type, "NVIDIA_TESLA_T4");             // never inherited
  const model::ReplicaConfig& ps = (*shapes)[2].config;
  EXPECT_EQ(ps.image_uri, "gcr.io/p/ps");  // its own image: nothing inherited
  EXPECT_EQ(ps.container_command, (std::vector<std::string>{"/bin/ps-server"}));
  EXPECT_TRUE(ps.container_args.empty());
  const model::ReplicaConfig& evaluator = (*shapes)[3].config;
  EXPECT_EQ(evaluator.image_uri, "gcr.io/p/trainer");
  EXPECT_EQ(evaluator.container_args, (std::vector<std::string>{"--epochs=1"}));
  EXPECT_FALSE(evaluator.accelerator_config.has_value());
}

TEST(ExpandReplicas, RuntimeJobsInheritNothing) {
  model::TrainingInput input;
  input.scale_tier = ScaleTier::kStandard1;
  const Result<std::vector<ReplicaShape>> shapes =
      ExpandReplicas(input, catalog::Catalog::Builtin());
  ASSERT_TRUE(shapes.ok());
  for (const ReplicaShape& shape : *shapes) {
    EXPECT_EQ(shape.config, model::ReplicaConfig{}) << shape.task_name;
  }
}

TEST(ExpandReplicas, UnknownMachineTypeNamesTheField) {
  model::TrainingInput input;
  input.scale_tier = ScaleTier::kCustom;
  input.master_type = "n1-standard-4";
  input.worker_type = "n9-imaginary";
  input.worker_count = 1;
  const Result<std::vector<ReplicaShape>> shapes =
      ExpandReplicas(input, catalog::Catalog::Builtin());
  ASSERT_FALSE(shapes.ok());
  EXPECT_EQ(shapes.status().code(), Code::kInvalidArgument);
  ASSERT_EQ(shapes.status().violations().size(), 1u);
  EXPECT_EQ(shapes.status().violations()[0].field, "trainingInput.workerType");
  EXPECT_NE(shapes.status().violations()[0].description.find("n9-imaginary"), std::string::npos);
}

// The builtin catalog's data files, with scale_tiers.json offering CUSTOM only.
Result<catalog::Catalog> CatalogWithoutPredefinedTiers() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const char* name : {"machine_types.json", "accelerators.json", "accelerator_counts.json",
                           "regions.json", "runtime_versions.json"}) {
    std::ifstream in(::trainyard::testing::SourceDir() + "/src/catalog/data/" + name);
    files.emplace_back(name, std::string(std::istreambuf_iterator<char>(in), {}));
  }
  files.emplace_back(
      "scale_tiers.json",
      R"({"scale_tiers": [{"name": "CUSTOM", "flag_name": "custom", "description": "x"}]})");
  return catalog::Catalog::Load(files);
}

TEST(ExpandReplicas, TierMissingFromTheCatalogNamesScaleTier) {
  const Result<catalog::Catalog> custom_only = CatalogWithoutPredefinedTiers();
  ASSERT_TRUE(custom_only.ok()) << custom_only.status().ToString();
  model::TrainingInput input;
  input.scale_tier = ScaleTier::kStandard1;
  const Result<std::vector<ReplicaShape>> shapes = ExpandReplicas(input, *custom_only);
  ASSERT_FALSE(shapes.ok());
  ASSERT_EQ(shapes.status().violations().size(), 1u);
  EXPECT_EQ(shapes.status().violations()[0].field, "trainingInput.scaleTier");
}

}  // namespace
}  // namespace trainyard::plan
