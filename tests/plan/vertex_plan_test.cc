// A Vertex AI job's replicas (model::JobExtras::vertex): named by worker pool, CLUSTER_SPEC keyed
// by pool, TF_CONFIG naming the chief, AIP_* directories, each pool's own args
// (docs/reference/ai-platform-training.md §13).
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "plan/cluster_plan.h"
#include "plan/replicas.h"
#include "plan/vertex_config.h"

namespace trainyard::plan {
namespace {

using ::testing::ElementsAre;

model::Job VertexJob(std::string base_output = "gs://bkt1/out/") {
  model::Job job;
  job.job_id = "1234567890123456789";
  model::TrainingInput& input = job.training_input.emplace();
  input.scale_tier = model::ScaleTier::kCustom;
  input.region = "us-central1";
  input.master_type = "n1-standard-4";
  input.worker_type = "n1-standard-4";
  input.worker_count = 2;
  input.evaluator_type = "n1-standard-4";
  input.evaluator_count = 1;
  input.package_uris = {"gs://bkt1/p.tar.gz"};
  input.python_module = "trainer.task";
  input.args = {"--shared"};
  model::JobExtras& extras = job.extras.emplace();
  extras.worker.args = std::vector<std::string>{"--as=worker"};
  extras.vertex = model::VertexResource{.kind = "CustomJob",
                                        .location = "us-central1",
                                        .display_name = "d",
                                        .document = R"({"workerPoolSpecs":[{}]})",
                                        .base_output_directory = std::move(base_output)};
  return job;
}

std::string Var(const ReplicaLaunch& launch, std::string_view name) {
  for (const auto& [key, value] : launch.env) {
    if (key == name) {
      return value;
    }
  }
  return "<unset>";
}

std::vector<ReplicaLaunch> PlanVertex(const model::Job& job, std::string trial = "") {
  Result<std::vector<ReplicaShape>> shapes = JobReplicas(job, catalog::Catalog::Builtin());
  EXPECT_TRUE(shapes.ok()) << shapes.status().ToString();
  std::vector<ReplicaPlacement> placements;
  for (std::size_t i = 0; i < shapes->size(); ++i) {
    placements.push_back({.host = "127.0.0.1", .port = 2000 + static_cast<int>(i)});
  }
  PlanContext context;
  context.trial_id = std::move(trial);
  Result<std::vector<ReplicaLaunch>> plan =
      BuildClusterPlan(job, *shapes, placements, context, catalog::Catalog::Builtin());
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : std::vector<ReplicaLaunch>{};
}

TEST(VertexPlanTest, ReplicasAreNamedByPool) {
  std::vector<std::string> names;
  for (const ReplicaLaunch& launch : PlanVertex(VertexJob())) {
    names.push_back(launch.task_name);
  }
  EXPECT_THAT(names,
              ElementsAre("workerpool0-0", "workerpool1-0", "workerpool1-1", "workerpool3-0"));
  EXPECT_EQ(VertexTaskName(Role::kParameterServer, 4), "workerpool2-4");
}

TEST(VertexPlanTest, ClusterSpecIsKeyedByPoolAndTfConfigNamesTheChief) {
  const std::vector<ReplicaLaunch> plan = PlanVertex(VertexJob(), "7");
  const auto spec = nlohmann::json::parse(Var(plan[3], "CLUSTER_SPEC"));
  EXPECT_EQ(spec["cluster"]["workerpool0"], nlohmann::json::array({"127.0.0.1:2000"}));
  EXPECT_EQ(spec["cluster"]["workerpool3"], nlohmann::json::array({"127.0.0.1:2003"}));
  EXPECT_EQ(spec["task"], (nlohmann::json{{"type", "workerpool3"}, {"index", 0}, {"trial", "7"}}));
  EXPECT_TRUE(spec["job"]["workerPoolSpecs"].is_array());
  const auto tf = nlohmann::json::parse(Var(plan[0], "TF_CONFIG"));
  EXPECT_EQ(tf["task"]["type"], "chief");
  EXPECT_FALSE(tf["cluster"].contains("evaluator"));
  EXPECT_EQ(nlohmann::json::parse(Var(plan[3], "TF_CONFIG"))["task"]["type"], "evaluator");
}

TEST(VertexPlanTest, OutputDirectoriesComeFromTheBaseAndTheTrial) {
  std::vector<ReplicaLaunch> plan = PlanVertex(VertexJob());
  EXPECT_EQ(Var(plan[0], "AIP_MODEL_DIR"), "gs://bkt1/out/model/");
  EXPECT_EQ(Var(plan[1], "AIP_CHECKPOINT_DIR"), "gs://bkt1/out/checkpoints/");
  EXPECT_EQ(Var(plan[2], "AIP_TENSORBOARD_LOG_DIR"), "gs://bkt1/out/logs/");
  plan = PlanVertex(VertexJob(), "3");
  EXPECT_EQ(Var(plan[0], "AIP_MODEL_DIR"), "gs://bkt1/out/3/model/");
  plan = PlanVertex(VertexJob(""));
  EXPECT_EQ(Var(plan[0], "AIP_MODEL_DIR"), "<unset>");
}

TEST(VertexPlanTest, APoolsOwnArgsReplaceTheJobs) {
  const std::vector<ReplicaLaunch> plan = PlanVertex(VertexJob());
  EXPECT_THAT(plan[0].argv, ElementsAre("python3", "-m", "trainer.task", "--shared"));
  EXPECT_THAT(plan[1].argv, ElementsAre("python3", "-m", "trainer.task", "--as=worker"));
}

}  // namespace
}  // namespace trainyard::plan
