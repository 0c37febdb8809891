#include "plan/cluster_json.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/sample_jobs.h"

namespace trainyard::plan::internal {
namespace {

TEST(SnakeCaseTrainingInput, UsesProtoFieldNamesInSchemaOrder) {
  const model::Job job = testing::ValidRuntimeJob();
  EXPECT_EQ(
      Dump(SnakeCaseTrainingInput(*job.training_input)),
      R"({"package_uris":["gs://my-bucket/trainer-0.1.tar.gz"],)"
      R"("python_module":"trainer.task","region":"us-central1",)"
      R"("job_dir":"gs://my-bucket/output","runtime_version":"2.11","python_version":"3.7"})");
}

TEST(SnakeCaseTrainingInput, ConvertsNestedKeysAndLeavesValuesAlone) {
  model::TrainingInput input;
  input.scale_tier = model::ScaleTier::kCustom;
  input.master_type = "n1-standard-8";
  input.master_config = model::ReplicaConfig{
      .accelerator_config = model::AcceleratorConfig{.count = 2, .type = "NVIDIA_TESLA_T4"}};
  input.worker_type = "n1-standard-8";
  input.worker_count = 2;
  input.use_chief_in_tf_config = true;
  model::ParameterSpec lr{.parameter_name = "learningRate",
                          .type = model::ParameterType::kDouble,
                          .min_value = 0.001,
                          .max_value = 0.1,
                          .scale_type = model::ScaleType::kUnitLogScale};
  input.hyperparameters = model::HyperparameterSpec{.goal = model::GoalType::kMaximize,
                                                    .params = {lr},
                                                    .max_trials = 4,
                                                    .hyperparameter_metric_tag = "accuracy"};
  input.args = {"--camelCase=keptAsIs"};
  input.scheduling = model::Scheduling{.max_running_time = std::chrono::hours(1)};

  EXPECT_EQ(Dump(SnakeCaseTrainingInput(input)),
            R"({"scale_tier":"CUSTOM","master_type":"n1-standard-8",)"
            R"("master_config":{"accelerator_config":{"count":"2","type":"NVIDIA_TESLA_T4"}},)"
            R"("worker_type":"n1-standard-8","worker_count":"2","use_chief_in_tf_config":true,)"
            R"("args":["--camelCase=keptAsIs"],)"
            R"("hyperparameters":{"goal":"MAXIMIZE","params":[{"parameter_name":"learningRate",)"
            R"("type":"DOUBLE","min_value":0.001,"max_value":0.1,"scale_type":"UNIT_LOG_SCALE"}],)"
            R"("max_trials":4,"hyperparameter_metric_tag":"accuracy"},)"
            R"("scheduling":{"max_running_time":"3600s"}})");
}

ClusterMembers SmallCluster() {
  return ClusterMembers{.master = {"127.0.0.1:2222"},
                        .worker = {"127.0.0.1:2223"},
                        .ps = {},
                        .evaluator = {"127.0.0.1:2224"}};
}

TEST(TfConfig, IsCompactAndOrderedAsTheReference) {
  const nlohmann::ordered_json job = {{"python_module", "t"}};
  EXPECT_EQ(TfConfig(SmallCluster(), "chief", TaskRef{.role = Role::kWorker, .index = 0}, job),
            R"({"cluster":{"chief":["127.0.0.1:2222"],"worker":["127.0.0.1:2223"]},)"
            R"("task":{"type":"worker","index":0},"job":{"python_module":"t"},)"
            R"("environment":"cloud"})");
  EXPECT_EQ(TfConfig(SmallCluster(), "master",
                     TaskRef{.role = Role::kMaster, .index = 0, .trial = "3"}, job),
            R"({"cluster":{"master":["127.0.0.1:2222"],"worker":["127.0.0.1:2223"]},)"
            R"("task":{"type":"master","index":0,"trial":"3"},"job":{"python_module":"t"},)"
            R"("environment":"cloud"})");
}

TEST(ClusterSpec, SaysMasterListsEvaluatorsAndEncodesTheJobAsAString) {
  EXPECT_EQ(ClusterSpec(SmallCluster(), TaskRef{.role = Role::kEvaluator, .index = 0},
                        R"({"python_module":"t"})"),
            R"({"cluster":{"master":["127.0.0.1:2222"],"worker":["127.0.0.1:2223"],)"
            R"("evaluator":["127.0.0.1:2224"]},"task":{"type":"evaluator","index":0},)"
            R"("job":"{\"python_module\":\"t\"}","environment":"cloud"})");
}

TEST(Dump, ReplacesInvalidUtf8InsteadOfThrowing) {
  const nlohmann::ordered_json value = std::string("a\xff");
  EXPECT_EQ(Dump(value), "\"a\xef\xbf\xbd\"");
}

}  // namespace
}  // namespace trainyard::plan::internal
