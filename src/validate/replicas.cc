#include "validate/replicas.h"

#include <algorithm>

#include <fmt/format.h>

namespace trainyard::validate {
namespace {

constexpr std::string_view kUnspecifiedAccelerator = "ACCELERATOR_TYPE_UNSPECIFIED";

ReplicaView MakeView(Role role, std::string_view noun, std::string_view prefix,
                     std::string_view type, std::int64_t count,
                     const std::optional<model::ReplicaConfig>& config) {
  const FieldPath input = FieldPath().Child("trainingInput");
  ReplicaView view;
  view.role = role;
  view.noun = noun;
  view.type_path = input.Child(fmt::format("{}Type", prefix));
  view.count_path =
      role == Role::kMaster ? FieldPath() : input.Child(fmt::format("{}Count", prefix));
  view.config_path = input.Child(fmt::format("{}Config", prefix));
  view.type = type;
  view.count = count;
  view.config = config ? &*config : nullptr;
  return view;
}

}  // namespace

bool HasAcceleratorType(const model::AcceleratorConfig& config) {
  return !config.type.empty() && config.type != kUnspecifiedAccelerator;
}

const model::AcceleratorConfig* ReplicaView::accelerator_config() const {
  if (config == nullptr || !config->accelerator_config) {
    return nullptr;
  }
  return &*config->accelerator_config;
}

std::array<ReplicaView, 4> ReplicaViews(const model::TrainingInput& input) {
  return {
      MakeView(Role::kMaster, "master", "master", input.master_type, 1, input.master_config),
      MakeView(Role::kWorker, "worker", "worker", input.worker_type, input.worker_count,
               input.worker_config),
      MakeView(Role::kParameterServer, "parameter server", "parameterServer",
               input.parameter_server_type, input.parameter_server_count,
               input.parameter_server_config),
      MakeView(Role::kEvaluator, "evaluator", "evaluator", input.evaluator_type,
               input.evaluator_count, input.evaluator_config),
  };
}

std::string_view EffectiveImage(const ReplicaView& replica, const model::TrainingInput& input) {
  if (replica.config != nullptr && !replica.config->image_uri.empty()) {
    return replica.config->image_uri;
  }
  if (input.master_config) {
    return input.master_config->image_uri;
  }
  return {};
}

std::vector<RunningReplica> RunningReplicas(const std::array<ReplicaView, 4>& views,
                                            const model::TrainingInput& input,
                                            const catalog::Catalog& catalog) {
  const bool custom = input.scale_tier == model::ScaleTier::kCustom;
  const catalog::ScaleTierSpec* tier =
      custom ? nullptr : catalog.FindScaleTier(model::ScaleTierName(input.scale_tier));
  if (!custom && tier == nullptr) {
    return {};
  }

  std::vector<RunningReplica> running;
  for (const ReplicaView& view : views) {
    RunningReplica replica;
    replica.view = &view;
    if (custom) {
      replica.machine_type = view.type;
      replica.count = view.count;
    } else {
      switch (view.role) {
        case Role::kMaster:
          replica.machine_type = tier->master_type;
          replica.count = 1;
          break;
        case Role::kWorker:
          replica.machine_type = tier->worker_type;
          replica.count = tier->worker_count;
          break;
        case Role::kParameterServer:
          replica.machine_type = tier->parameter_server_type;
          replica.count = tier->parameter_server_count;
          break;
        case Role::kEvaluator:
          break;
      }
    }
    if (replica.machine_type.empty() || replica.count <= 0) {
      continue;
    }
    replica.machine = catalog.FindMachineType(replica.machine_type);

    const model::AcceleratorConfig* requested = custom ? view.accelerator_config() : nullptr;
    if (requested != nullptr && HasAcceleratorType(*requested)) {
      replica.accelerator = catalog.FindAccelerator(requested->type);
      replica.accelerator_count = requested->count;
    } else if (replica.machine != nullptr && !replica.machine->builtin_accelerator.empty()) {
      replica.accelerator = catalog.FindAccelerator(replica.machine->builtin_accelerator);
      replica.accelerator_count = replica.machine->builtin_accelerator_count;
    }
    running.push_back(replica);
  }
  return running;
}

bool UsesTpu(const std::vector<RunningReplica>& running) {
  return std::ranges::any_of(running, [](const RunningReplica& r) {
    return (r.machine != nullptr && r.machine->family == catalog::MachineFamily::kTpuHost) ||
           (r.accelerator != nullptr && r.accelerator->kind == catalog::AcceleratorKind::kTpu);
  });
}

std::string JoinAnd(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) {
      out += i + 1 == items.size() ? " and " : ", ";
    }
    out += items[i];
  }
  return out;
}

}  // namespace trainyard::validate
