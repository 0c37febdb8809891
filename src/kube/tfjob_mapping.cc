#include "kube/tfjob_mapping.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace trainyard::kube {
namespace {

constexpr std::string_view kDefaultMachine = "n1-standard-4";
constexpr std::string_view kDefaultAccelerator = "NVIDIA_TESLA_T4";
// Node-selector keys whose value names the GPU model (docs/reference/kubeflow-tfjob.md §8): GKE's
// and the common admin label in the gcloud flag spelling, and GPU feature discovery's product name.
constexpr std::string_view kFlagLabels[] = {"cloud.google.com/gke-accelerator", "accelerator"};
constexpr std::string_view kProductLabel = "nvidia.com/gpu.product";
constexpr std::size_t kMaxMlLabels = 64;
constexpr std::size_t kMaxMlLabelLength = 63;

// ml v1 label syntax (validate/labels.cc): lower-case letters, digits, '_' and '-'; a key starts
// with a letter. Kubernetes labels that break it stay in the stored TFJob, not on the job.
bool IsMlLabelChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}
bool IsMlLabel(const std::string& key, const std::string& value) {
  return !key.empty() && key.size() <= kMaxMlLabelLength && key.front() >= 'a' &&
         key.front() <= 'z' && std::ranges::all_of(key, IsMlLabelChar) &&
         value.size() <= kMaxMlLabelLength && std::ranges::all_of(value, IsMlLabelChar);
}

model::RestartRule RestartRuleOf(std::string_view policy) {
  if (policy == "Always") {
    return model::RestartRule::kAlways;
  }
  if (policy == "OnFailure") {
    return model::RestartRule::kOnFailure;
  }
  if (policy == "ExitCode") {
    return model::RestartRule::kExitCode;
  }
  return model::RestartRule::kNever;  // TFJob's default; validation refused anything else
}

// The replica spec the engine's master is: the Chief or Master, else the Worker
// (docs/reference/kubeflow-tfjob.md §5).
const ReplicaSpec* PrimarySpec(const TFJob& tfjob) {
  for (const std::string_view type : {kChief, kMaster, kWorker}) {
    if (const ReplicaSpec* spec = tfjob.Find(type)) {
      return spec;
    }
  }
  return nullptr;
}

const Container* TensorflowContainer(const ReplicaSpec& spec) {
  const auto& containers = spec.template_.containers;
  const auto it = std::ranges::find(containers, kContainerName, &Container::name);
  return it == containers.end() ? nullptr : &*it;
}

std::int64_t GpuCount(const Container& container) {
  const auto it = container.limits.find(std::string(kGpuResource));
  std::int64_t count = 0;
  if (it != container.limits.end()) {
    std::from_chars(it->second.data(), it->second.data() + it->second.size(), count);
  }
  return count;
}

// n1-standard-4 when it takes `count` of `accelerator`, else the first type in catalog order
// that does (n1-standard-16 for 2 K80s is not needed: n1-standard-4 takes 1–8), else
// n1-standard-4 and let validate::Validate say what is wrong.
std::string MachineFor(const std::string& accelerator, std::int64_t count,
                       const catalog::Catalog& catalog) {
  const auto takes = [&](std::string_view machine) {
    const std::vector<int>* counts = catalog.AllowedAcceleratorCounts(machine, accelerator);
    return counts != nullptr && std::ranges::find(*counts, count) != counts->end();
  };
  if (count == 0 || takes(kDefaultMachine)) {
    return std::string(kDefaultMachine);
  }
  for (const catalog::MachineType& machine : catalog.machine_types()) {
    if (machine.family == catalog::MachineFamily::kComputeEngine && takes(machine.name)) {
      return machine.name;
    }
  }
  return std::string(kDefaultMachine);
}

struct Role {
  std::string machine_type;
  model::ReplicaConfig config;
  model::RoleExtras extras;
};

Role RoleOf(const ReplicaSpec& spec, const MappingContext& context,
            const catalog::Catalog& catalog) {
  Role role;
  const Container* container = TensorflowContainer(spec);
  const std::int64_t gpus = container == nullptr ? 0 : GpuCount(*container);
  std::string accelerator;
  if (gpus > 0) {
    accelerator = AcceleratorFor(spec.template_.node_selector, context.nodes, catalog);
    role.config.accelerator_config = model::AcceleratorConfig{gpus, accelerator};
  }
  role.machine_type = MachineFor(accelerator, gpus, catalog);
  if (container != nullptr) {
    role.config.image_uri = container->image;
    role.config.container_command = container->command;
    role.config.container_args = container->args;
    for (const EnvVar& var : container->env) {
      role.extras.env.emplace_back(var.name, var.value);
    }
    role.extras.working_dir = container->working_dir;
  }
  role.extras.restart = RestartRuleOf(spec.restart_policy);
  role.extras.node_selector = spec.template_.node_selector;
  return role;
}

// The TFJob field of an ml v1 rule's path of the mapped job, for the fields RoleOf copies from a
// container; nullopt for any other path.
std::optional<std::string> TFJobFieldOf(std::string_view ml_path, const TFJob& tfjob) {
  static constexpr std::pair<std::string_view, std::string_view> kConfigTypes[] = {
      {"trainingInput.masterConfig", ""},  // the primary
      {"trainingInput.workerConfig", kWorker},
      {"trainingInput.parameterServerConfig", kPS},
      {"trainingInput.evaluatorConfig", kEvaluator},
  };
  static constexpr std::pair<std::string_view, std::string_view> kFields[] = {
      {".containerCommand", ".command"},
      {".containerArgs", ".args"},
      {".containerEnv", ".env"},  // validate.h's name for a container role's env
  };
  for (const auto& [config, type] : kConfigTypes) {
    if (!ml_path.starts_with(config)) {
      continue;
    }
    const std::string_view rest = ml_path.substr(config.size());
    const ReplicaSpec* spec = type.empty() ? PrimarySpec(tfjob) : tfjob.Find(type);
    const Container* container = spec == nullptr ? nullptr : TensorflowContainer(*spec);
    if (container == nullptr) {
      return std::nullopt;
    }
    const std::size_t index =
        static_cast<std::size_t>(container - spec->template_.containers.data());
    for (const auto& [ml, tf] : kFields) {
      if (rest.starts_with(ml)) {
        return fmt::format("spec.tfReplicaSpecs[{}].template.spec.containers[{}]{}{}", spec->type,
                           index, tf, rest.substr(ml.size()));
      }
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Duration> Seconds(const std::optional<std::int64_t>& seconds) {
  if (!seconds.has_value()) {
    return std::nullopt;
  }
  return std::chrono::duration_cast<Duration>(std::chrono::seconds(*seconds));
}

}  // namespace

std::vector<StatusCause> MappedJobCauses(const Status& status, const TFJob& job) {
  std::vector<StatusCause> causes;
  std::set<std::pair<std::string, std::string>> seen;
  for (const FieldViolation& violation : status.violations()) {
    std::string field = TFJobFieldOf(violation.field, job)
                            .value_or("spec (as the AI Platform job " + violation.field + ")");
    if (seen.emplace(field, violation.description).second) {
      causes.push_back(StatusCause{
          .reason = "FieldValueInvalid", .message = violation.description, .field = field});
    }
  }
  if (causes.empty()) {
    causes.push_back(
        StatusCause{.reason = "FieldValueInvalid", .message = status.message(), .field = "spec"});
  }
  return causes;
}

std::string EngineJobId(std::string_view tfjob_name) {
  std::string id(tfjob_name);
  std::ranges::replace(id, '-', '_');
  return id;
}

model::JobIdScheme JobIdSchemeFor(std::string_view tfjob_name) {
  constexpr int kMaxAttempts = 100;
  return model::JobIdScheme{
      .candidate =
          [base = EngineJobId(tfjob_name)](int attempt, std::uint64_t /*draw*/) {
            return attempt == 0 ? base : base + "_" + std::to_string(attempt + 1);
          },
      .max_attempts = kMaxAttempts,
      .random = false};
}

std::string AcceleratorFor(const std::map<std::string, std::string>& node_selector,
                           const std::vector<NodeView>& nodes, const catalog::Catalog& catalog) {
  for (const std::string_view key : kFlagLabels) {
    if (const auto it = node_selector.find(std::string(key)); it != node_selector.end()) {
      if (const catalog::Accelerator* found = catalog.FindAcceleratorByFlag(it->second)) {
        return found->name;
      }
    }
  }
  if (const auto it = node_selector.find(std::string(kProductLabel)); it != node_selector.end()) {
    std::string device = it->second;  // GPU feature discovery wrote ' ' as '-'
    std::ranges::replace(device, '-', ' ');
    if (const catalog::Accelerator* found = catalog.FindAcceleratorByDeviceName(device)) {
      return found->name;
    }
  }
  const auto matches = [&](const NodeView& node) {
    return std::ranges::all_of(node_selector, [&](const auto& pair) {
      const auto it = node.labels.find(pair.first);
      return it != node.labels.end() && it->second == pair.second;
    });
  };
  for (const NodeView& node : nodes) {
    if (matches(node) && !node.accelerators.empty()) {
      return node.accelerators.front();
    }
  }
  for (const NodeView& node : nodes) {
    if (!node.accelerators.empty()) {
      return node.accelerators.front();
    }
  }
  return std::string(kDefaultAccelerator);
}

Result<model::Job> ToJob(const TFJob& tfjob, const MappingContext& context) {
  const catalog::Catalog& catalog =
      context.catalog != nullptr ? *context.catalog : catalog::Catalog::Builtin();
  const ReplicaSpec* worker = tfjob.Find(kWorker);
  const ReplicaSpec* primary = PrimarySpec(tfjob);
  if (primary == nullptr || primary->replicas < 1) {
    return Status::InvalidArgument(
        {FieldViolation{"spec.tfReplicaSpecs",
                        "a TFJob needs a Chief, a Master or a Worker to be the job's master"}});
  }

  model::Job job;
  job.job_id = context.job_id;
  for (const auto& [key, value] : tfjob.metadata.labels) {
    if (IsMlLabel(key, value) && job.labels.size() < kMaxMlLabels) {
      job.labels.emplace(key, value);
    }
  }
  model::TrainingInput& input = job.training_input.emplace();
  model::JobExtras& extras = job.extras.emplace();
  input.scale_tier = model::ScaleTier::kCustom;
  input.region = context.region;

  Role master = RoleOf(*primary, context, catalog);
  input.master_type = master.machine_type;
  input.master_config = std::move(master.config);
  extras.master = std::move(master.extras);
  if (worker != nullptr) {
    // Worker 0 is the master when there is no chief (docs/reference/kubeflow-tfjob.md §5): the
    // engine's workers are the rest.
    const std::int64_t count = primary == worker ? worker->replicas - 1 : worker->replicas;
    if (count > 0) {
      Role role = RoleOf(*worker, context, catalog);
      input.worker_type = role.machine_type;
      input.worker_config = std::move(role.config);
      input.worker_count = count;
      extras.worker = std::move(role.extras);
    }
  }
  if (const ReplicaSpec* ps = tfjob.Find(kPS); ps != nullptr && ps->replicas > 0) {
    Role role = RoleOf(*ps, context, catalog);
    input.parameter_server_type = role.machine_type;
    input.parameter_server_config = std::move(role.config);
    input.parameter_server_count = ps->replicas;
    extras.parameter_server = std::move(role.extras);
  }
  if (const ReplicaSpec* evaluator = tfjob.Find(kEvaluator);
      evaluator != nullptr && evaluator->replicas > 0) {
    Role role = RoleOf(*evaluator, context, catalog);
    input.evaluator_type = role.machine_type;
    input.evaluator_config = std::move(role.config);
    input.evaluator_count = evaluator->replicas;
    extras.evaluator = std::move(role.extras);
  }

  const RunPolicy& policy = tfjob.run_policy;
  const std::optional<Duration> deadline = Seconds(policy.active_deadline_seconds);
  const std::optional<Duration> wait =
      policy.scheduling_policy ? Seconds(policy.scheduling_policy->schedule_timeout_seconds)
                               : std::nullopt;
  if (deadline.has_value() || wait.has_value()) {
    input.scheduling = model::Scheduling{.max_running_time = deadline, .max_wait_time = wait};
  }

  extras.kubeflow = model::KubeflowNaming{.job_name = tfjob.metadata.name,
                                          .namespace_name = tfjob.metadata.namespace_name,
                                          .primary_type = LowerType(primary->type)};
  extras.success = tfjob.success_policy == "AllWorkers" ? model::SuccessRule::kAllWorkers
                                                        : model::SuccessRule::kPrimary;
  extras.backoff_limit = policy.backoff_limit;
  extras.suspended = policy.suspend;
  // Its number is the admin's, looked up when the job is placed (control/reconcile/priority.h).
  if (policy.scheduling_policy.has_value()) {
    extras.priority_class = policy.scheduling_policy->priority_class;
  }
  extras.kube = model::KubeObject{.kind = std::string(kTFJobKind),
                                  .api_version = tfjob.api_version,
                                  .name = tfjob.metadata.name,
                                  .namespace_name = tfjob.metadata.namespace_name,
                                  .uid = context.uid,
                                  .document = context.document,
                                  .generation = 1};
  return job;
}

}  // namespace trainyard::kube
