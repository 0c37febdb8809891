#include "kube/tfjob_export.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "kube/tfjob_decode.h"
#include "kube/tfjob_validate.h"
#include "kube/yaml_text.h"

namespace trainyard::kube {
namespace {

using nlohmann::ordered_json;

constexpr std::string_view kAcceleratorLabel = "cloud.google.com/gke-accelerator";

// One ml v1 role as it is exported.
struct RoleSource {
  std::string_view type;  // Kubeflow's
  std::string_view noun;  // ml v1's field prefix
  std::string machine_type;
  const std::optional<model::ReplicaConfig>* config;
  std::int64_t count;
  const model::RoleExtras* extras;
};

std::string Yaml(const TFJob& tfjob, const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& note : notes) {
    out += "# trainyard: " + note + "\n";
  }
  return out + internal::ToYaml(ordered_json::parse(EncodeTFJob(tfjob, nullptr)));
}

// A job that came from a TFJob: its document, as v1.
Result<std::string> FromDocument(const model::KubeObject& kube, std::string_view namespace_name) {
  KubeResult<DecodedTFJob> decoded = DecodeTFJob(kube.document);
  if (!decoded.ok()) {
    return Status::Internal("the stored TFJob " + kube.name +
                            " cannot be read back: " + decoded.error().message);
  }
  TFJob tfjob = std::move(decoded->job);
  if (tfjob.api_version == kApiVersionV1Beta2 && !tfjob.run_policy.clean_pod_policy) {
    // v1beta2's default; v1's is None (docs/reference/kubeflow-tfjob.md §9 #6).
    tfjob.run_policy.clean_pod_policy = "Running";
  }
  tfjob.api_version = std::string(kApiVersionV1);
  ObjectMeta& meta = tfjob.metadata;
  meta = ObjectMeta{
      .name = meta.name,
      .namespace_name = namespace_name.empty() ? meta.namespace_name : std::string(namespace_name),
      .labels = meta.labels,
      .annotations = meta.annotations};
  meta.annotations.erase("kubectl.kubernetes.io/last-applied-configuration");
  return Yaml(tfjob, {});
}

std::string FlagName(std::string_view accelerator, const catalog::Catalog& catalog) {
  if (const catalog::Accelerator* found = catalog.FindAccelerator(accelerator)) {
    return found->flag_name;
  }
  std::string flag(accelerator);
  std::ranges::transform(flag, flag.begin(), [](char c) {
    return c == '_' ? '-' : static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  });
  return flag;
}

Status Refuse(const model::Job& job, std::string why) {
  return Status::FailedPrecondition(
      fmt::format("job {} cannot be exported as a TFJob: {}", job.job_id, why));
}

// The roles of `input`: from a predefined scale tier when not CUSTOM.
std::vector<RoleSource> RolesOf(const model::TrainingInput& input, const model::JobExtras& extras,
                                const catalog::Catalog& catalog) {
  std::string master_type = input.master_type;
  std::string worker_type = input.worker_type;
  std::string ps_type = input.parameter_server_type;
  std::int64_t workers = input.worker_count;
  std::int64_t servers = input.parameter_server_count;
  if (input.scale_tier != model::ScaleTier::kCustom) {
    if (const catalog::ScaleTierSpec* tier =
            catalog.FindScaleTier(model::ScaleTierName(input.scale_tier))) {
      master_type = tier->master_type;
      worker_type = tier->worker_type;
      ps_type = tier->parameter_server_type;
      workers = tier->worker_count;
      servers = tier->parameter_server_count;
    }
  }
  return {
      {kChief, "master", master_type, &input.master_config, 1, &extras.master},
      {kWorker, "worker", worker_type, &input.worker_config, workers, &extras.worker},
      {kPS, "parameterServer", ps_type, &input.parameter_server_config, servers,
       &extras.parameter_server},
      {kEvaluator, "evaluator", input.evaluator_type, &input.evaluator_config,
       input.evaluator_count, &extras.evaluator},
  };
}

// The ml v1 fields a TFJob has no place for, each a note.
void NoteInput(const model::TrainingInput& input, std::vector<std::string>& notes) {
  if (!input.region.empty()) {
    notes.push_back(fmt::format("region {} has no TFJob field; the cluster decides", input.region));
  }
  if (!input.job_dir.empty()) {
    notes.push_back(
        fmt::format("jobDir {} is not passed; add --job-dir to the args if the "
                    "trainer reads it",
                    input.job_dir));
  }
  if (input.scheduling && input.scheduling->max_wait_time) {
    notes.push_back(
        "scheduling.maxWaitTime has no TFJob field (Kubernetes has no queue-wait deadline; "
        "schedulingPolicy.scheduleTimeoutSeconds is the nearest, with a gang scheduler)");
  }
  if (input.scheduling && input.scheduling->priority != 0) {
    notes.push_back(
        fmt::format("scheduling.priority {} has no TFJob field; use a "
                    "PriorityClass in schedulingPolicy.priorityClass",
                    input.scheduling->priority));
  }
  if (!input.network.empty() || !input.service_account.empty() || input.encryption_config) {
    notes.push_back("network, serviceAccount and encryptionConfig are not exported");
  }
  if (input.evaluator_count > 0) {
    notes.push_back(
        "the operator lists evaluators in TF_CONFIG's cluster; AI Platform does not (§4.2)");
  }
}

}  // namespace

Result<std::string> ExportTFJob(const model::Job& job, std::string_view namespace_name) {
  if (job.extras && job.extras->kube && !job.extras->kube->document.empty()) {
    return FromDocument(*job.extras->kube, namespace_name);
  }
  if (!job.training_input.has_value()) {
    return Refuse(job, "it has no trainingInput");
  }
  const model::TrainingInput& input = *job.training_input;
  if (input.hyperparameters.has_value()) {
    return Refuse(job,
                  "trainingInput.hyperparameters: a TFJob runs one training, not a study "
                  "(Katib's Experiment runs studies)");
  }
  if (!input.master_config || input.master_config->image_uri.empty()) {
    return Refuse(
        job, fmt::format("it runs the Python module {} from trainingInput.packageUris [{}] "
                         "(trainingInput.pythonModule) on runtime version {}, and a TFJob runs "
                         "container images: build an image with the package installed and "
                         "submit the job with trainingInput.masterConfig.imageUri",
                         input.python_module.empty() ? "(none)" : input.python_module,
                         fmt::join(input.package_uris, ", "),
                         input.runtime_version.empty() ? "(default)" : input.runtime_version));
  }
  std::string name = job.job_id;
  std::ranges::transform(name, name.begin(), [](char c) {
    return c == '_' ? '-' : static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  });
  if (!IsDns1035Label(name)) {
    return Refuse(job, fmt::format("its id becomes \"{}\", which is not a Kubernetes name "
                                   "(at most 63 lower-case letters, digits and '-', ending "
                                   "with a letter or digit)",
                                   name));
  }

  const catalog::Catalog& catalog = catalog::Catalog::Builtin();
  const model::JobExtras extras = job.extras.value_or(model::JobExtras{});
  std::vector<std::string> notes;
  TFJob tfjob;
  tfjob.metadata.name = name;
  tfjob.metadata.namespace_name = std::string(namespace_name);
  for (const auto& [key, value] : job.labels) {
    if (IsQualifiedName(key) && IsLabelValue(value)) {
      tfjob.metadata.labels[key] = value;
    } else {
      notes.push_back(fmt::format("label {}={} is not a valid Kubernetes label", key, value));
    }
  }
  for (const RoleSource& role : RolesOf(input, extras, catalog)) {
    if (role.count <= 0) {
      continue;
    }
    const model::ReplicaConfig config = role.config->value_or(*input.master_config);
    Container container{
        .name = std::string(kContainerName),
        .image = config.image_uri.empty() ? input.master_config->image_uri : config.image_uri,
        .command = config.container_command,
        .args = config.container_args.empty() ? input.args : config.container_args,
        .working_dir = role.extras->working_dir,
        .ports = {ContainerPort{std::string(kPortName), kDefaultPort}}};
    for (const auto& [var, value] : role.extras->env) {
      container.env.push_back(EnvVar{var, value, false});
    }
    ReplicaSpec spec{.type = std::string(role.type),
                     .replicas = static_cast<std::int32_t>(role.count),
                     .restart_policy = role.extras->restart == model::RestartRule::kAiPlatform
                                           ? "OnFailure"
                                           : std::string(RestartRuleName(role.extras->restart))};
    spec.template_.node_selector = role.extras->node_selector;
    // The GPUs: asked for, else the machine type's own (standard_gpu: one K80).
    const catalog::MachineType* machine = catalog.FindMachineType(role.machine_type);
    std::string accelerator;
    std::int64_t gpus = 0;
    if (config.accelerator_config && config.accelerator_config->count > 0) {
      accelerator = config.accelerator_config->type;
      gpus = config.accelerator_config->count;
    } else if (machine != nullptr && machine->builtin_accelerator_count > 0) {
      accelerator = machine->builtin_accelerator;
      gpus = machine->builtin_accelerator_count;
    }
    if (gpus > 0) {
      const catalog::Accelerator* found = catalog.FindAccelerator(accelerator);
      if (found != nullptr && found->kind == catalog::AcceleratorKind::kTpu) {
        return Refuse(job, fmt::format("trainingInput.{}Config uses {}: a TFJob asks for GPUs "
                                       "only",
                                       role.noun, accelerator));
      }
      container.limits[std::string(kGpuResource)] = std::to_string(gpus);
      spec.template_.node_selector[std::string(kAcceleratorLabel)] = FlagName(accelerator, catalog);
    }
    if (!role.machine_type.empty()) {
      notes.push_back(
          machine != nullptr
              ? fmt::format("{} machine {} ({} vCPUs, {} GB) has no TFJob field; set "
                            "resources.requests if the cluster needs them",
                            role.type, role.machine_type, machine->vcpus, machine->memory_gb)
              : fmt::format("{} machine {} has no TFJob field", role.type, role.machine_type));
    }
    spec.template_.containers.push_back(std::move(container));
    tfjob.replica_specs.push_back(std::move(spec));
  }
  NoteInput(input, notes);

  // Stop everyone when the chief ends (docs/reference/kubeflow-tfjob.md §5).
  tfjob.run_policy.clean_pod_policy = "Running";
  if (input.scheduling && input.scheduling->max_running_time) {
    const auto seconds =
        std::chrono::ceil<std::chrono::seconds>(*input.scheduling->max_running_time);
    tfjob.run_policy.active_deadline_seconds = seconds.count();
  }
  tfjob.run_policy.backoff_limit = extras.backoff_limit;
  tfjob.run_policy.suspend = extras.suspended;
  tfjob.success_policy = std::string(SuccessRuleName(extras.success));
  return Yaml(tfjob, notes);
}

}  // namespace trainyard::kube
