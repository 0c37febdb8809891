#include "plan/replicas.h"

#include <utility>

#include <fmt/format.h>

#include "algorithms/algorithms.h"
#include "base/check.h"

namespace trainyard::plan {
namespace {

// docs/reference/ai-platform-training.md §2.3: an acceleratorConfig without a real type asks for
// nothing.
constexpr std::string_view kUnspecifiedAccelerator = "ACCELERATOR_TYPE_UNSPECIFIED";

// One role's request: which machine, how many, and the role's own config.
struct RoleRequest {
  Role role;
  std::string machine_type;
  std::int64_t count = 0;
  const std::optional<model::ReplicaConfig>* config;
  std::string_view type_field;  // for errors: "trainingInput.workerType"
};

// docs/reference/ai-platform-training.md §2.3 (AI Platform's fallback): a replica with no imageUri
// of its own runs the master's image. It then also inherits the master's containerCommand and
// containerArgs where it sets none of its own; accelerators, disks and tpuTfVersion are never
// inherited.
model::ReplicaConfig EffectiveConfig(Role role, const std::optional<model::ReplicaConfig>& own,
                                     const std::optional<model::ReplicaConfig>& master) {
  model::ReplicaConfig config = own.value_or(model::ReplicaConfig{});
  if (role == Role::kMaster || !config.image_uri.empty() || !master || master->image_uri.empty()) {
    return config;
  }
  config.image_uri = master->image_uri;
  if (config.container_command.empty()) {
    config.container_command = master->container_command;
  }
  if (config.container_args.empty()) {
    config.container_args = master->container_args;
  }
  return config;
}

std::vector<RoleRequest> RoleRequests(const model::TrainingInput& input,
                                      const catalog::ScaleTierSpec* tier) {
  if (tier == nullptr) {  // CUSTOM
    return {
        {Role::kMaster, input.master_type, 1, &input.master_config, "trainingInput.masterType"},
        {Role::kWorker, input.worker_type, input.worker_count, &input.worker_config,
         "trainingInput.workerType"},
        {Role::kParameterServer, input.parameter_server_type, input.parameter_server_count,
         &input.parameter_server_config, "trainingInput.parameterServerType"},
        {Role::kEvaluator, input.evaluator_type, input.evaluator_count, &input.evaluator_config,
         "trainingInput.evaluatorType"},
    };
  }
  // docs/reference/ai-platform-training.md §3: predefined tiers have no evaluators.
  return {
      {Role::kMaster, tier->master_type, 1, &input.master_config, "trainingInput.scaleTier"},
      {Role::kWorker, tier->worker_type, tier->worker_count, &input.worker_config,
       "trainingInput.scaleTier"},
      {Role::kParameterServer, tier->parameter_server_type, tier->parameter_server_count,
       &input.parameter_server_config, "trainingInput.scaleTier"},
  };
}

}  // namespace

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kMaster:
      return "master";
    case Role::kWorker:
      return "worker";
    case Role::kParameterServer:
      return "ps";
    case Role::kEvaluator:
      return "evaluator";
  }
  TY_CHECK(false) << "unknown Role " << static_cast<int>(role);
  return {};
}

std::string TaskName(Role role, int index) {
  return fmt::format("{}-replica-{}", RoleName(role), index);
}

int VertexPool(Role role) {
  switch (role) {
    case Role::kMaster:
      return 0;
    case Role::kWorker:
      return 1;
    case Role::kParameterServer:
      return 2;
    case Role::kEvaluator:
      return 3;
  }
  return 0;
}

std::string VertexTaskName(Role role, int index) {
  return fmt::format("workerpool{}-{}", VertexPool(role), index);
}

const model::RoleExtras& RoleExtrasOf(const model::JobExtras& extras, Role role) {
  switch (role) {
    case Role::kMaster:
      return extras.master;
    case Role::kWorker:
      return extras.worker;
    case Role::kParameterServer:
      return extras.parameter_server;
    case Role::kEvaluator:
      return extras.evaluator;
  }
  return extras.master;  // unreachable: every role is listed
}

Result<std::vector<ReplicaShape>> ExpandReplicas(const model::TrainingInput& input,
                                                 const catalog::Catalog& catalog) {
  const catalog::ScaleTierSpec* tier = nullptr;
  if (input.scale_tier != model::ScaleTier::kCustom) {
    const std::string_view tier_name = model::ScaleTierName(input.scale_tier);
    tier = catalog.FindScaleTier(tier_name);
    if (tier == nullptr) {
      return Status::InvalidArgument(std::vector<FieldViolation>{
          {"trainingInput.scaleTier",
           fmt::format("scale tier {} is not in this installation's catalog", tier_name)}});
    }
  }

  std::vector<ReplicaShape> shapes;
  for (const RoleRequest& request : RoleRequests(input, tier)) {
    if (request.count <= 0) {
      continue;
    }
    const catalog::MachineType* machine = catalog.FindMachineType(request.machine_type);
    if (machine == nullptr) {
      return Status::InvalidArgument(std::vector<FieldViolation>{
          {std::string(request.type_field),
           request.machine_type.empty()
               ? fmt::format("the {} needs a machine type", RoleName(request.role))
               : fmt::format("machine type '{}' is not in this installation's catalog",
                             request.machine_type)}});
    }
    model::ReplicaConfig config =
        EffectiveConfig(request.role, *request.config, input.master_config);
    std::string algorithm_image;
    if (const algorithms::Algorithm* algorithm = algorithms::FindAlgorithm(config.image_uri);
        algorithm != nullptr && algorithm->available) {
      algorithm_image = std::exchange(config.image_uri, std::string());
    }
    for (int index = 0; index < request.count; ++index) {
      ReplicaShape shape;
      shape.role = request.role;
      shape.index = index;
      shape.task_name = TaskName(request.role, index);
      shape.machine_type = request.machine_type;
      const std::optional<model::AcceleratorConfig>& asked = config.accelerator_config;
      if (asked && !asked->type.empty() && asked->type != kUnspecifiedAccelerator) {
        shape.accelerator = asked->type;
        shape.accelerator_count = static_cast<int>(asked->count);
      } else if (!machine->builtin_accelerator.empty()) {
        shape.accelerator = machine->builtin_accelerator;
        shape.accelerator_count = machine->builtin_accelerator_count;
      }
      shape.config = config;
      shape.algorithm_image = algorithm_image;
      shapes.push_back(std::move(shape));
    }
  }
  return shapes;
}

Result<std::vector<ReplicaShape>> JobReplicas(const model::Job& job,
                                              const catalog::Catalog& catalog) {
  Result<std::vector<ReplicaShape>> shapes = ExpandReplicas(*job.training_input, catalog);
  if (shapes.ok() && job.extras.has_value() && job.extras->vertex.has_value()) {
    for (ReplicaShape& shape : *shapes) {
      shape.task_name = VertexTaskName(shape.role, shape.index);
    }
  }
  return shapes;
}

}  // namespace trainyard::plan
