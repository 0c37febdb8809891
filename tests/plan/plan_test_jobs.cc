#include "plan/plan_test_jobs.h"

#include <utility>

#include "base/check.h"
#include "catalog/catalog.h"
#include "plan/replicas.h"
#include "support/sample_jobs.h"

namespace trainyard::plan::testing {

model::Job CustomJob(int workers, int ps, int evaluators) {
  model::Job job = trainyard::testing::ValidRuntimeJob("custom_job");
  model::TrainingInput& input = *job.training_input;
  input.scale_tier = model::ScaleTier::kCustom;
  input.master_type = "n1-standard-4";
  if (workers > 0) {
    input.worker_type = "n1-standard-4";
    input.worker_count = workers;
  }
  if (ps > 0) {
    input.parameter_server_type = "n1-standard-4";
    input.parameter_server_count = ps;
  }
  if (evaluators > 0) {
    input.evaluator_type = "n1-standard-4";
    input.evaluator_count = evaluators;
  }
  input.args = {"--epochs", "3"};
  return job;
}

model::Job ContainerJob(std::vector<std::string> command) {
  model::Job job = trainyard::testing::ValidRuntimeJob("container_job");
  model::TrainingInput& input = *job.training_input;
  trainyard::testing::DropPythonPackage(input);
  input.master_config = model::ReplicaConfig{.image_uri = "gcr.io/p/trainer",
                                             .container_command = std::move(command),
                                             .container_args = {"--steps", "10"}};
  return job;
}

std::vector<ReplicaPlacement> Placements(std::size_t count) {
  std::vector<ReplicaPlacement> placements(count);
  for (std::size_t i = 0; i < count; ++i) {
    placements[i].port = 2222 + static_cast<int>(i);
  }
  return placements;
}

PlanContext Context() {
  PlanContext context;
  context.python = "/usr/bin/python3";
  context.pythonpath = "/data/jobs/p/custom_job/packages";
  context.gcs_mount = "/data/buckets";
  context.storage_emulator_host = "http://127.0.0.1:8470";
  context.pytorch_master_port = 29500;
  return context;
}

Result<std::vector<ReplicaLaunch>> Plan(const model::Job& job,
                                        std::optional<std::vector<ReplicaPlacement>> placements,
                                        const std::optional<PlanContext>& context) {
  const catalog::Catalog& catalog = catalog::Catalog::Builtin();
  Result<std::vector<ReplicaShape>> shapes = ExpandReplicas(*job.training_input, catalog);
  TY_CHECK(shapes.ok()) << shapes.status().ToString();
  if (!placements) {
    placements = Placements(shapes->size());
  }
  return BuildClusterPlan(job, *shapes, *placements, context.value_or(Context()), catalog);
}

std::optional<std::string> EnvOf(const ReplicaLaunch& launch, std::string_view name) {
  for (const auto& [key, value] : launch.env) {
    if (key == name) {
      return value;
    }
  }
  return std::nullopt;
}

std::vector<std::string> EnvNames(const ReplicaLaunch& launch) {
  std::vector<std::string> names;
  for (const auto& entry : launch.env) {
    names.push_back(entry.first);
  }
  return names;
}

}  // namespace trainyard::plan::testing
