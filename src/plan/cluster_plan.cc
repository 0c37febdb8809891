#include "plan/cluster_plan.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "algorithms/algorithms.h"
#include "base/check.h"
#include "plan/cluster_json.h"
#include "plan/kubeflow_config.h"
#include "plan/vertex_config.h"

namespace trainyard::plan {
namespace {

using nlohmann::ordered_json;

// docs/reference/ai-platform-training.md §9.2: the tag cloudml-hypertune uses when none is
// configured.
constexpr std::string_view kDefaultMetricTag = "training/hptuning/metric";
// TPU_CONFIG.project names the project hosting the TPU (Google's, not the user's); here the TPU
// host is this installation.
constexpr std::string_view kTpuHostProject = "trainyard";

bool IsContainerJob(const model::TrainingInput& input) {
  return input.master_config && !input.master_config->image_uri.empty();
}

// docs/reference/ai-platform-training.md §7.2: runtime jobs say "chief" from runtime 2.1 (the
// catalog's `chief_in_tf_config`; a runtime the catalog does not know is taken as a current TF 2
// one), containers say "master" unless useChiefInTfConfig.
std::string_view PrimaryName(const model::TrainingInput& input, const catalog::Catalog& catalog) {
  if (IsContainerJob(input)) {
    return input.use_chief_in_tf_config ? "chief" : "master";
  }
  const catalog::RuntimeVersion* runtime = catalog.FindRuntimeVersion(input.runtime_version);
  return runtime == nullptr || runtime->chief_in_tf_config ? "chief" : "master";
}

bool HasTpu(const ReplicaShape& shape, const catalog::Catalog& catalog) {
  const catalog::MachineType* machine = catalog.FindMachineType(shape.machine_type);
  const catalog::Accelerator* accelerator = catalog.FindAccelerator(shape.accelerator);
  return (machine != nullptr && machine->family == catalog::MachineFamily::kTpuHost) ||
         (accelerator != nullptr && accelerator->kind == catalog::AcceleratorKind::kTpu);
}

// docs/reference/ai-platform-training.md §6: {"project", "zone", "tpu_node_name"}. The zone is the
// job region's first that offers the TPU's type, as a TPU would be created there.
std::string TpuConfig(const model::TrainingInput& input, std::string_view job_id,
                      const ReplicaShape& tpu_replica, const catalog::Catalog& catalog) {
  std::string zone;
  if (const catalog::Region* region = catalog.FindRegion(input.region)) {
    for (const catalog::Zone& candidate : region->zones) {
      if (std::ranges::find(candidate.accelerators, tpu_replica.accelerator) !=
          candidate.accelerators.end()) {
        zone = candidate.name;
        break;
      }
    }
  }
  ordered_json config = ordered_json::object();
  config["project"] = kTpuHostProject;
  config["zone"] = zone;
  config["tpu_node_name"] = fmt::format("{}-tpu", job_id);
  return internal::Dump(config);
}

std::string MetricTag(const model::TrainingInput& input, const PlanContext& context) {
  if (!context.hp_metric_tag.empty()) {
    return context.hp_metric_tag;
  }
  if (input.hyperparameters && !input.hyperparameters->hyperparameter_metric_tag.empty()) {
    return input.hyperparameters->hyperparameter_metric_tag;
  }
  return std::string(kDefaultMetricTag);
}

// docs/reference/ai-platform-training.md §7.5: what follows the program: args, the trial's
// hyperparameters (§9.1) and `--job-dir`.
std::vector<std::string> TrailingArgs(const std::vector<std::string>& job_args,
                                      const PlanContext& context,
                                      const std::optional<std::string>& job_dir) {
  std::vector<std::string> args = job_args;
  args.insert(args.end(), context.trial_args.begin(), context.trial_args.end());
  if (job_dir) {
    args.emplace_back("--job-dir");
    args.push_back(*job_dir);
  }
  return args;
}

// A runtime job's replica: the interpreter runs the module, with the job's args or its role's
// own (a Vertex worker pool's).
Result<std::vector<std::string>> PythonArgv(const ReplicaShape& shape, const model::Job& job,
                                            const PlanContext& context,
                                            const std::optional<std::string>& job_dir) {
  const model::TrainingInput& input = *job.training_input;
  if (input.python_module.empty()) {
    return Status::FailedPrecondition(
        fmt::format("Replica {} {} has neither a pythonModule nor a container to run.",
                    RoleName(shape.role), shape.index));
  }
  std::vector<std::string> argv = {context.python, "-m", input.python_module};
  const std::optional<std::vector<std::string>>* role_args =
      job.extras.has_value() ? &RoleExtrasOf(*job.extras, shape.role).args : nullptr;
  std::vector<std::string> trailing = TrailingArgs(
      role_args != nullptr && role_args->has_value() ? **role_args : input.args, context, job_dir);
  argv.insert(argv.end(), trailing.begin(), trailing.end());
  return argv;
}

// A built-in algorithm's replica (docs/reference/ai-platform-training.md §12): its program from
// trainyard's python/ (on PYTHONPATH) with the algorithm's interpreter, in place of the image,
// given what the image would be given.
std::vector<std::string> AlgorithmArgv(const ReplicaShape& shape, const model::TrainingInput& input,
                                       const PlanContext& context,
                                       const std::optional<std::string>& job_dir) {
  const algorithms::Algorithm* algorithm = algorithms::FindAlgorithm(shape.algorithm_image);
  TY_CHECK(algorithm != nullptr) << shape.algorithm_image << " is not a built-in algorithm";
  std::vector<std::string> argv = {algorithm->python, "-m", algorithm->module};
  std::vector<std::string> trailing = TrailingArgs(input.args, context, job_dir);
  argv.insert(argv.end(), trailing.begin(), trailing.end());
  return argv;
}

// A container replica (docs/reference/ai-platform-training.md §2.3, "Command/args semantics"):
// containerArgs and what follows them replace the image's CMD.
ContainerLaunch Container(const ReplicaShape& shape, const model::TrainingInput& input,
                          const PlanContext& context, const std::optional<std::string>& job_dir) {
  ContainerLaunch container{.image = shape.config.image_uri,
                            .command = shape.config.container_command,
                            .args = shape.config.container_args,
                            .working_dir = {},
                            .hosts = {}};
  std::vector<std::string> trailing = TrailingArgs(input.args, context, job_dir);
  container.args.insert(container.args.end(), trailing.begin(), trailing.end());
  return container;
}

internal::ClusterMembers Members(const std::vector<ReplicaShape>& shapes,
                                 const std::vector<ReplicaPlacement>& placements) {
  internal::ClusterMembers members;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    std::string address = fmt::format("{}:{}", placements[i].host, placements[i].port);
    switch (shapes[i].role) {
      case Role::kMaster:
        members.master.push_back(std::move(address));
        break;
      case Role::kWorker:
        members.worker.push_back(std::move(address));
        break;
      case Role::kParameterServer:
        members.ps.push_back(std::move(address));
        break;
      case Role::kEvaluator:
        members.evaluator.push_back(std::move(address));
        break;
    }
  }
  return members;
}

// A Kubeflow job's replicas, each at its Service name where the replicas can resolve it (see the
// header), else at its host.
std::vector<KubeflowMember> KubeflowMembers(const model::KubeflowNaming& naming,
                                            const std::vector<ReplicaShape>& shapes,
                                            const std::vector<ReplicaPlacement>& placements,
                                            bool names_resolve) {
  std::vector<KubeflowMember> members;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    KubeflowTask task = KubeflowTaskOf(naming, shapes[i].role, shapes[i].index);
    const std::string& host = placements[i].host;
    std::string name =
        names_resolve && IsAddressLiteral(host) ? KubeflowDnsName(naming, task) : host;
    members.push_back({std::move(task), fmt::format("{}:{}", name, placements[i].port)});
  }
  return members;
}

// The hosts file lines that resolve every peer's names, both the Service's and the short one.
std::vector<std::pair<std::string, std::string>> KubeflowHosts(
    const model::KubeflowNaming& naming, const std::vector<ReplicaShape>& shapes,
    const std::vector<ReplicaPlacement>& placements) {
  std::vector<std::pair<std::string, std::string>> hosts;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (!IsAddressLiteral(placements[i].host)) {
      continue;
    }
    const KubeflowTask task = KubeflowTaskOf(naming, shapes[i].role, shapes[i].index);
    hosts.emplace_back(KubeflowDnsName(naming, task), placements[i].host);
    hosts.emplace_back(KubeflowServiceName(naming, task), placements[i].host);
  }
  return hosts;
}

// Sets `name` after every other variable, dropping an earlier value: the job's own variables
// win over trainyard's and each name appears once.
void SetLast(Environment& env, const std::string& name, const std::string& value) {
  std::erase_if(env, [&name](const auto& entry) { return entry.first == name; });
  env.emplace_back(name, value);
}

std::string DeviceList(const ReplicaPlacement& placement) {
  return placement.emulated ? std::string()
                            : fmt::format("{}", fmt::join(placement.device_indices, ","));
}

// What every replica of the job shares.
struct JobFacts {
  const model::Job& job;
  const model::TrainingInput& input;
  const PlanContext& context;
  std::string_view job_id;
  std::string_view primary;
  ordered_json job_value;
  std::string job_text;
  internal::ClusterMembers members;
  std::string master_host;
  std::optional<std::string> tpu_config;
  // Vertex AI jobs only.
  const model::VertexResource* vertex = nullptr;
  // Kubeflow jobs only.
  const model::KubeflowNaming* kubeflow = nullptr;
  std::vector<KubeflowMember> kubeflow_members;
  std::vector<std::pair<std::string, std::string>> kubeflow_hosts;  // for containers
};

// The variables of one replica, in the order the header lists them.
Environment ReplicaEnvironment(const JobFacts& facts, const ReplicaShape& shape,
                               const ReplicaPlacement& placement, const catalog::Catalog& catalog) {
  const PlanContext& context = facts.context;
  Environment env;
  const internal::TaskRef task{.role = shape.role, .index = shape.index, .trial = context.trial_id};
  if (facts.vertex != nullptr) {
    env.emplace_back("TF_CONFIG",
                     internal::TfConfig(facts.members, "chief", task, facts.job_value));
    env.emplace_back("CLUSTER_SPEC", VertexClusterSpec(facts.members, task, facts.job_value));
  } else if (facts.kubeflow == nullptr) {
    env.emplace_back("TF_CONFIG",
                     internal::TfConfig(facts.members, facts.primary, task, facts.job_value));
    env.emplace_back("CLUSTER_SPEC", internal::ClusterSpec(facts.members, task, facts.job_text));
  } else if (facts.kubeflow_members.size() != 1) {  // the operator's isDistributed
    env.emplace_back("TF_CONFIG",
                     KubeflowTfConfig(facts.kubeflow_members,
                                      KubeflowTaskOf(*facts.kubeflow, shape.role, shape.index)));
  }
  env.emplace_back("CLOUD_ML_JOB", facts.job_text);
  env.emplace_back("CLOUD_ML_JOB_ID", facts.job_id);
  // docs/reference/ai-platform-training.md §7.4 and §9.2: tuning trials only.
  if (!context.trial_id.empty()) {
    env.emplace_back("CLOUD_ML_TRIAL_ID", context.trial_id);
    env.emplace_back("CLOUD_ML_HP_METRIC_TAG", MetricTag(facts.input, context));
    if (!context.hp_metric_dir.empty()) {
      env.emplace_back("CLOUD_ML_HP_METRIC_FILE",
                       context.hp_metric_dir + "/" + shape.task_name + ".metrics");
    }
  }
  // docs/reference/ai-platform-training.md §6: the master drives the TPU; the TPU worker gets it
  // too.
  if (facts.tpu_config && (shape.role == Role::kMaster || HasTpu(shape, catalog))) {
    env.emplace_back("TPU_CONFIG", *facts.tpu_config);
  }
  if (shape.role == Role::kMaster || shape.role == Role::kWorker) {
    env.emplace_back("MASTER_ADDR", facts.master_host);
    env.emplace_back("MASTER_PORT", std::to_string(context.pytorch_master_port));
    env.emplace_back("WORLD_SIZE", std::to_string(1 + facts.members.worker.size()));
    env.emplace_back("RANK", std::to_string(shape.role == Role::kMaster ? 0 : shape.index + 1));
    env.emplace_back("LOCAL_RANK", "0");
  }
  env.emplace_back("CUDA_VISIBLE_DEVICES", DeviceList(placement));
  if (placement.emulated && !shape.accelerator.empty()) {
    env.emplace_back("TRAINYARD_EMULATED_ACCELERATORS",
                     fmt::format("{}:{}", shape.accelerator, shape.accelerator_count));
  }
  if (!context.storage_emulator_host.empty()) {
    env.emplace_back("STORAGE_EMULATOR_HOST", context.storage_emulator_host);
    // gcloud in a replica (`gcloud storage cp`) talks to this server as the job: with its token
    // when the server checks tokens, without credentials otherwise.
    env.emplace_back("CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE",
                     context.storage_emulator_host + "/storage/v1/");
    if (context.access_token_file.empty()) {
      env.emplace_back("CLOUDSDK_AUTH_DISABLE_CREDENTIALS", "true");
    } else {
      env.emplace_back("CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", context.access_token_file);
    }
    if (!context.project.empty()) {
      env.emplace_back("CLOUDSDK_CORE_PROJECT", context.project);
    }
  }
  if (!context.access_token.empty()) {
    env.emplace_back("TRAINYARD_TOKEN", context.access_token);
  }
  if (!context.pythonpath.empty() && shape.config.image_uri.empty()) {
    env.emplace_back("PYTHONPATH", context.pythonpath);
  }
  env.emplace_back("PYTHONUNBUFFERED", "1");
  if (facts.input.job_dir.starts_with(kGcsScheme)) {
    env.emplace_back("TRAINYARD_JOB_DIR_URI", facts.input.job_dir);
  }
  if (!shape.algorithm_image.empty() && !context.gcs_mount.empty()) {
    env.emplace_back("TRAINYARD_GCS_MOUNT", context.gcs_mount);  // where its gs:// data paths are
  }
  if (facts.vertex != nullptr) {
    for (auto& variable : VertexOutputVariables(*facts.vertex, context.trial_id)) {
      env.push_back(std::move(variable));
    }
  }
  if (facts.job.extras.has_value()) {
    for (const auto& [name, value] : RoleExtrasOf(*facts.job.extras, shape.role).env) {
      SetLast(env, name, value);
    }
  }
  return env;
}

}  // namespace

Result<std::vector<ReplicaLaunch>> BuildClusterPlan(const model::Job& job,
                                                    const std::vector<ReplicaShape>& shapes,
                                                    const std::vector<ReplicaPlacement>& placements,
                                                    const PlanContext& context,
                                                    const catalog::Catalog& catalog) {
  TY_CHECK(job.training_input.has_value()) << "job " << job.job_id << " has no trainingInput";
  TY_CHECK(shapes.size() == placements.size())
      << shapes.size() << " replicas but " << placements.size() << " placements";
  const model::TrainingInput& input = *job.training_input;

  // docs/reference/ai-platform-training.md §7.5: the job dir reaches the program as `--job-dir`,
  // mapped to a local path.
  std::optional<std::string> job_dir;
  if (!input.job_dir.empty()) {
    Result<std::string> local = LocalPathOf(input.job_dir, context.gcs_mount);
    if (!local.ok()) {
      return local.status();
    }
    job_dir = std::move(*local);
  }

  const auto master = std::ranges::find(shapes, Role::kMaster, &ReplicaShape::role);
  TY_CHECK(master != shapes.end()) << "job " << job.job_id << " has no master replica";
  JobFacts facts{.job = job,
                 .input = input,
                 .context = context,
                 .job_id = context.job_id.empty() ? job.job_id : context.job_id,
                 .primary = PrimaryName(input, catalog),
                 .job_value = internal::SnakeCaseTrainingInput(input),
                 .job_text = {},
                 .members = Members(shapes, placements),
                 .master_host = placements[master - shapes.begin()].host,
                 .tpu_config = std::nullopt};
  if (job.extras.has_value() && job.extras->vertex.has_value()) {
    facts.vertex = &*job.extras->vertex;
    facts.job_value = VertexJobSpec(*facts.vertex);  // TF_CONFIG's and CLUSTER_SPEC's `job`
  }
  facts.job_text = internal::Dump(facts.job_value);
  if (job.extras.has_value() && job.extras->kubeflow.has_value()) {
    facts.kubeflow = &*job.extras->kubeflow;
    const bool names_resolve = IsContainerJob(input) && !context.containers_on_host;
    facts.kubeflow_members = KubeflowMembers(*facts.kubeflow, shapes, placements, names_resolve);
    if (names_resolve) {
      facts.kubeflow_hosts = KubeflowHosts(*facts.kubeflow, shapes, placements);
    }
  }
  const auto tpu = std::ranges::find_if(
      shapes, [&catalog](const ReplicaShape& shape) { return HasTpu(shape, catalog); });
  if (tpu != shapes.end()) {
    facts.tpu_config = TpuConfig(input, facts.job_id, *tpu, catalog);
  }

  std::vector<ReplicaLaunch> launches;
  launches.reserve(shapes.size());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    ReplicaLaunch launch{.task_name = shapes[i].task_name,
                         .role = shapes[i].role,
                         .index = shapes[i].index,
                         .argv = {},
                         .container = std::nullopt,
                         .env = ReplicaEnvironment(facts, shapes[i], placements[i], catalog),
                         .working_dir = {}};
    const std::string working_dir =
        job.extras.has_value() ? RoleExtrasOf(*job.extras, shapes[i].role).working_dir : "";
    if (!shapes[i].algorithm_image.empty()) {
      launch.argv = AlgorithmArgv(shapes[i], input, context, job_dir);
    } else if (shapes[i].config.image_uri.empty()) {
      Result<std::vector<std::string>> argv = PythonArgv(shapes[i], job, context, job_dir);
      if (!argv.ok()) {
        return argv.status();
      }
      launch.argv = std::move(*argv);
      launch.working_dir = working_dir;
    } else {
      launch.container = Container(shapes[i], input, context, job_dir);
      launch.container->working_dir = working_dir;
      launch.container->hosts = facts.kubeflow_hosts;
    }
    launches.push_back(std::move(launch));
  }
  return launches;
}

}  // namespace trainyard::plan
