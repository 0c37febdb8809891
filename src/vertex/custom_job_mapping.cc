#include "vertex/custom_job_mapping.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/embedded.h"
#include "base/utf8.h"

namespace trainyard::vertex {
namespace data {
// vertex/data/*.json, embedded at build time (cmake/embed.cmake).
base::EmbeddedFiles Embedded();
}  // namespace data

namespace {

// Where each worker pool goes in ml v1's TrainingInput and in the extras.
struct PoolRole {
  std::string_view type_field;    // "masterType"
  std::string_view config_field;  // "masterConfig"
  std::string_view count_field;   // "" for the master (always one)
  std::string model::TrainingInput::*type;
  std::optional<model::ReplicaConfig> model::TrainingInput::*config;
  std::int64_t model::TrainingInput::*count;  // null for the master
  model::RoleExtras model::JobExtras::*extras;
};

const std::array<PoolRole, 4> kPools = {{
    {"masterType", "masterConfig", "", &model::TrainingInput::master_type,
     &model::TrainingInput::master_config, nullptr, &model::JobExtras::master},
    {"workerType", "workerConfig", "workerCount", &model::TrainingInput::worker_type,
     &model::TrainingInput::worker_config, &model::TrainingInput::worker_count,
     &model::JobExtras::worker},
    {"parameterServerType", "parameterServerConfig", "parameterServerCount",
     &model::TrainingInput::parameter_server_type, &model::TrainingInput::parameter_server_config,
     &model::TrainingInput::parameter_server_count, &model::JobExtras::parameter_server},
    {"evaluatorType", "evaluatorConfig", "evaluatorCount", &model::TrainingInput::evaluator_type,
     &model::TrainingInput::evaluator_config, &model::TrainingInput::evaluator_count,
     &model::JobExtras::evaluator},
}};

constexpr std::size_t kMaxDisplayName = 128;

std::string PoolPath(std::string_view spec_path, std::size_t index) {
  return fmt::format("{}.workerPoolSpecs[{}]", spec_path, index);
}

std::size_t CodePoints(std::string_view text) {
  return static_cast<std::size_t>(std::ranges::count_if(
      text, [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
}

bool HasAccelerator(const MachineSpec& machine) {
  return !machine.accelerator_type.empty() &&
         machine.accelerator_type != "ACCELERATOR_TYPE_UNSPECIFIED";
}

bool RunsWithHostPython(std::string_view image, const std::vector<std::string>& prefixes) {
  return std::ranges::any_of(prefixes,
                             [&](const std::string& prefix) { return image.starts_with(prefix); });
}

void CheckPool(const WorkerPoolSpec& pool, const std::string& path, bool primary,
               const MappingContext& context, std::vector<FieldViolation>& out) {
  if (pool.machine_spec.machine_type.empty()) {
    out.push_back({path + ".machineSpec.machineType", "A worker pool needs a machine type."});
  }
  if (pool.replica_count < 1) {
    out.push_back(
        {path + ".replicaCount", fmt::format("must be at least 1; got {}", pool.replica_count)});
  } else if (primary && pool.replica_count != 1) {
    out.push_back({path + ".replicaCount",
                   fmt::format("The first worker pool is the chief and must have exactly one "
                               "replica; got {}",
                               pool.replica_count)});
  }
  if (HasAccelerator(pool.machine_spec) != (pool.machine_spec.accelerator_count > 0)) {
    out.push_back({path + ".machineSpec.acceleratorCount",
                   "acceleratorType and a positive acceleratorCount go together"});
  }
  if (pool.container_spec.has_value() == pool.python_package_spec.has_value()) {
    out.push_back({path,
                   "A worker pool needs exactly one of containerSpec and "
                   "pythonPackageSpec."});
  }
  if (pool.container_spec.has_value() && pool.container_spec->image_uri.empty()) {
    out.push_back({path + ".containerSpec.imageUri", "A container needs an image URI."});
  }
  if (pool.python_package_spec.has_value()) {
    const PythonPackageSpec& python = *pool.python_package_spec;
    const std::string at = path + ".pythonPackageSpec";
    if (python.executor_image_uri.empty()) {
      out.push_back({at + ".executorImageUri", "A Python package needs an executor image."});
    } else if (!RunsWithHostPython(python.executor_image_uri, context.host_python_prefixes)) {
      out.push_back(
          {at + ".executorImageUri",
           fmt::format("trainyard cannot run executor image '{}': it runs Google's prebuilt "
                       "training images ({}…) with the server's Python; for another image, "
                       "build it with the package installed and use containerSpec",
                       python.executor_image_uri,
                       context.host_python_prefixes.empty() ? std::string("none configured")
                                                            : context.host_python_prefixes[0])});
    }
    if (python.package_uris.empty()) {
      out.push_back({at + ".packageUris", "A Python package job needs at least one package URI."});
    }
    if (python.python_module.empty()) {
      out.push_back({at + ".pythonModule", "A Python package job needs a module to run."});
    }
  }
}

// A HyperparameterSpec field (".maxTrials", ".params[2].minValue") as the tuning job's.
std::string StudyFieldToVertex(std::string_view field,
                               std::span<const std::string> parameter_paths) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kStudyFields = {{
      {".maxTrials", "maxTrialCount"},
      {".maxParallelTrials", "parallelTrialCount"},
      {".maxFailedTrials", "maxFailedTrialCount"},
      {".goal", "studySpec.metrics[0].goal"},
      {".hyperparameterMetricTag", "studySpec.metrics[0].metricId"},
      {".algorithm", "studySpec.algorithm"},
      {".enableTrialEarlyStopping", "studySpec"},
  }};
  for (const auto& [ml, vertex] : kStudyFields) {
    if (field == ml) {
      return std::string(vertex);
    }
  }
  constexpr std::string_view kParams = ".params";
  if (field.starts_with(kParams)) {
    const std::string_view rest = field.substr(kParams.size());
    const std::string_view index = rest.substr(0, rest.find(']') + 1);  // "[2]"
    std::size_t i = parameter_paths.size();
    if (index.size() > 2) {
      std::from_chars(index.data() + 1, index.data() + index.size() - 1, i);
    }
    return i < parameter_paths.size() ? parameter_paths[i]
                                      : "studySpec.parameters" + std::string(index);
  }
  return "studySpec";
}

}  // namespace

std::string JobIdFromDraw(std::uint64_t draw) {
  constexpr std::uint64_t kBase = 1'000'000'000'000'000'000ULL;
  return std::to_string(kBase + draw % (8 * kBase));
}

model::JobIdScheme JobIdScheme() {
  constexpr int kAttempts = 5;
  return model::JobIdScheme{
      .candidate = [](int /*attempt*/, std::uint64_t draw) { return JobIdFromDraw(draw); },
      .max_attempts = kAttempts,
      .random = true};
}

const std::vector<std::string>& DefaultHostPythonPrefixes() {
  static const std::vector<std::string> prefixes = [] {
    const auto doc = nlohmann::json::parse(data::Embedded().Get("executor_images.json"));
    return doc.at("host_python_prefixes").get<std::vector<std::string>>();
  }();
  return prefixes;
}

std::vector<FieldViolation> ValidateDisplayName(std::string_view display_name) {
  std::vector<FieldViolation> out;
  if (display_name.empty()) {
    out.push_back({"displayName", "A display name is required."});
  } else if (!IsValidUtf8(display_name) || CodePoints(display_name) > kMaxDisplayName) {
    out.push_back({"displayName",
                   fmt::format("must be valid UTF-8 of at most {} characters", kMaxDisplayName)});
  }
  return out;
}

std::vector<FieldViolation> ValidateJobSpec(const CustomJobSpec& spec, std::string_view path,
                                            const MappingContext& context) {
  std::vector<FieldViolation> out;
  const std::vector<WorkerPoolSpec>& pools = spec.worker_pool_specs;
  const std::string pools_path = fmt::format("{}.workerPoolSpecs", path);
  if (pools.empty() || pools.size() > kPools.size()) {
    out.push_back({pools_path, fmt::format("must hold 1 to 4 worker pools (chief, workers, "
                                           "parameter servers, evaluators); got {}",
                                           pools.size())});
    return out;
  }
  if (pools[0].placeholder()) {
    out.push_back({PoolPath(path, 0), "The first worker pool (the chief) must be set."});
  }
  const WorkerPoolSpec* first_package = nullptr;
  std::size_t first_package_index = 0;
  bool any_container = false;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    if (i > 0 && pools[i].placeholder()) {
      continue;
    }
    const std::string at = PoolPath(path, i);
    CheckPool(pools[i], at, i == 0, context, out);
    any_container = any_container || pools[i].container_spec.has_value();
    if (!pools[i].python_package_spec.has_value()) {
      continue;
    }
    if (first_package == nullptr) {
      first_package = &pools[i];
      first_package_index = i;
      continue;
    }
    const PythonPackageSpec& mine = *pools[i].python_package_spec;
    const PythonPackageSpec& first = *first_package->python_package_spec;
    if (mine.package_uris != first.package_uris || mine.python_module != first.python_module) {
      out.push_back({at + ".pythonPackageSpec",
                     fmt::format("trainyard runs every worker pool of a job from one package: "
                                 "packageUris and pythonModule must equal those of "
                                 "workerPoolSpecs[{}]",
                                 first_package_index)});
    }
  }
  if (any_container && first_package != nullptr) {
    out.push_back({pools_path,
                   "trainyard runs a job's worker pools either all from containers "
                   "or all from a Python package, not both"});
  }
  if (spec.scheduling.has_value() && spec.scheduling->timeout.has_value() &&
      spec.scheduling->timeout->count() <= 0) {
    out.push_back({fmt::format("{}.scheduling.timeout", path), "must be positive"});
  }
  if (!spec.base_output_directory.empty() && !spec.base_output_directory.starts_with("gs://")) {
    out.push_back({fmt::format("{}.baseOutputDirectory.outputUriPrefix", path),
                   fmt::format("'{}' is not a gs:// URI", spec.base_output_directory)});
  }
  return out;
}

model::TrainingInput ToTrainingInput(const CustomJobSpec& spec, std::string_view location) {
  model::TrainingInput input;
  input.scale_tier = model::ScaleTier::kCustom;
  input.region = std::string(location);
  input.use_chief_in_tf_config = true;
  for (std::size_t i = 0; i < spec.worker_pool_specs.size() && i < kPools.size(); ++i) {
    const WorkerPoolSpec& pool = spec.worker_pool_specs[i];
    if (pool.placeholder()) {
      continue;
    }
    const PoolRole& role = kPools[i];
    input.*role.type = pool.machine_spec.machine_type;
    if (role.count != nullptr) {
      input.*role.count = pool.replica_count;
    }
    model::ReplicaConfig config;
    if (HasAccelerator(pool.machine_spec)) {
      config.accelerator_config = model::AcceleratorConfig{
          .count = pool.machine_spec.accelerator_count, .type = pool.machine_spec.accelerator_type};
    }
    if (pool.disk_spec.has_value()) {
      config.disk_config =
          model::DiskConfig{.boot_disk_type = pool.disk_spec->boot_disk_type,
                            .boot_disk_size_gb = pool.disk_spec->boot_disk_size_gb};
    }
    if (pool.container_spec.has_value()) {
      config.image_uri = pool.container_spec->image_uri;
      config.container_command = pool.container_spec->command;
      config.container_args = pool.container_spec->args;
    }
    if (pool.python_package_spec.has_value() && input.python_module.empty()) {
      input.package_uris = pool.python_package_spec->package_uris;
      input.python_module = pool.python_package_spec->python_module;
    }
    input.*role.config = std::move(config);
  }
  if (spec.scheduling.has_value() && spec.scheduling->timeout.has_value()) {
    input.scheduling = model::Scheduling{.max_running_time = spec.scheduling->timeout};
  }
  input.network = spec.network;
  input.service_account = spec.service_account;
  if (spec.enable_web_access) {
    input.enable_web_access = true;
  }
  return input;
}

model::JobExtras ToExtras(const CustomJobSpec& spec, const MappingContext& context,
                          std::string display_name) {
  model::JobExtras extras;
  for (std::size_t i = 0; i < spec.worker_pool_specs.size() && i < kPools.size(); ++i) {
    const WorkerPoolSpec& pool = spec.worker_pool_specs[i];
    model::RoleExtras& role = extras.*kPools[i].extras;
    if (pool.container_spec.has_value()) {
      role.env = pool.container_spec->env;
    }
    if (pool.python_package_spec.has_value()) {
      role.env = pool.python_package_spec->env;
      role.args = pool.python_package_spec->args;
    }
  }
  extras.restart_all_on_failure =
      spec.scheduling.has_value() && spec.scheduling->restart_job_on_worker_restart;
  extras.vertex = model::VertexResource{.kind = context.kind,
                                        .location = context.location,
                                        .display_name = std::move(display_name),
                                        .document = context.document,
                                        .base_output_directory = spec.base_output_directory};
  return extras;
}

model::Job ToJob(const CustomJob& job, const MappingContext& context) {
  model::Job out;
  out.job_id = context.job_id;
  out.labels = job.labels;
  out.training_input = ToTrainingInput(job.job_spec, context.location);
  out.extras = ToExtras(job.job_spec, context, job.display_name);
  return out;
}

std::string MlFieldToVertex(std::string_view ml_path, std::string_view spec_path,
                            std::span<const std::string> parameter_paths) {
  constexpr std::string_view kInput = "trainingInput.";
  if (!ml_path.starts_with(kInput)) {
    return std::string(ml_path);  // labels.*, jobId: the same on both wires
  }
  const std::string_view field = ml_path.substr(kInput.size());
  constexpr std::string_view kStudy = "hyperparameters";
  if (field.starts_with(kStudy)) {
    return StudyFieldToVertex(field.substr(kStudy.size()), parameter_paths);
  }
  // Pool-level fields, then whole-spec ones.
  // A role's env and own args are the engine's extras, named as validate.h says.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kConfigFields = {{
      {".acceleratorConfig.count", ".machineSpec.acceleratorCount"},
      {".acceleratorConfig.type", ".machineSpec.acceleratorType"},
      {".acceleratorConfig", ".machineSpec"},
      {".imageUri", ".containerSpec.imageUri"},
      {".diskConfig", ".diskSpec"},
      {".containerCommand", ".containerSpec.command"},
      {".containerArgs", ".containerSpec.args"},
      {".containerEnv", ".containerSpec.env"},
      {".args", ".pythonPackageSpec.args"},
      {".env", ".pythonPackageSpec.env"},
  }};
  for (std::size_t i = 0; i < kPools.size(); ++i) {
    const PoolRole& role = kPools[i];
    std::string pool = PoolPath(spec_path, i);
    if (field == role.type_field) {
      return pool + ".machineSpec.machineType";
    }
    if (!role.count_field.empty() && field == role.count_field) {
      return pool + ".replicaCount";
    }
    if (field.starts_with(role.config_field)) {
      const std::string_view rest = field.substr(role.config_field.size());
      for (const auto& [ml, vertex] : kConfigFields) {
        if (rest.starts_with(ml)) {
          return pool + std::string(vertex) + std::string(rest.substr(ml.size()));
        }
      }
      return pool;
    }
  }
  if (field.starts_with("region")) {
    return "name";  // the location in the resource's name
  }
  if (field.starts_with("scheduling.maxRunningTime")) {
    return std::string(spec_path) + ".scheduling.timeout";
  }
  return fmt::format("{}.{}", spec_path, field);
}

Status WithVertexPaths(const Status& status, std::string_view spec_path,
                       std::span<const std::string> parameter_paths) {
  if (status.code() != Code::kInvalidArgument || status.violations().empty()) {
    return status;
  }
  std::vector<FieldViolation> violations;
  for (const FieldViolation& violation : status.violations()) {
    violations.push_back({vertex::MlFieldToVertex(violation.field, spec_path, parameter_paths),
                          violation.description});
  }
  return Status::InvalidArgument(std::move(violations));
}

}  // namespace trainyard::vertex
