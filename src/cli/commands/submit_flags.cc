#include "cli/commands/submit_flags.h"

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace trainyard::cli {
namespace {

// Prefixes a value parser's message with the flag it came from, as argparse does.
Status ArgumentError(std::string_view flag, const Status& status) {
  return Status::InvalidArgument(fmt::format("argument {}: {}", flag, status.message()));
}

// Converts one optional flag with `parse`, recording the first error in `error`.
template <typename T, typename Parse>
std::optional<T> Convert(const std::optional<std::string>& text, std::string_view flag, Parse parse,
                         Status& error) {
  if (!text.has_value() || !error.ok()) {
    return std::nullopt;
  }
  auto value = parse(*text);
  if (!value.ok()) {
    error = ArgumentError(flag, value.status());
    return std::nullopt;
  }
  return *std::move(value);
}

// One replica role's flags: "--worker" + "-machine-type" etc. `counted` roles pair their count
// with their machine type, and each needs the other (gcloud's required argument groups).
ReplicaFlags ConvertReplica(const RawReplicaFlags& raw, std::string_view prefix, bool counted,
                            const catalog::Catalog& catalog, Status& error) {
  const std::string machine_flag = fmt::format("{}-machine-type", prefix);
  const std::string count_flag = fmt::format("{}-count", prefix);
  ReplicaFlags out;
  out.machine_type = raw.machine_type;
  out.image_uri = raw.image_uri;
  out.accelerator = Convert<model::AcceleratorConfig>(
      raw.accelerator, fmt::format("{}-accelerator", prefix),
      [&](const std::string& text) { return ParseAcceleratorSpec(text, catalog); }, error);
  if (!counted || !error.ok()) {
    return out;
  }
  out.count = Convert<std::int64_t>(raw.count, count_flag, ParsePositiveInt, error);
  if (error.ok() && raw.count.has_value() != raw.machine_type.has_value()) {
    error = Status::InvalidArgument(
        fmt::format("argument {}: Must be specified.", raw.count ? machine_flag : count_flag));
  }
  return out;
}

// gcloud's --kms-key resource argument: a full key name, or a key id completed by
// --kms-keyring, --kms-location and --kms-project (default: the project).
Result<std::optional<std::string>> ResolveKmsKey(const RawTrainingFlags& raw) {
  if (!raw.kms_key) {
    for (const auto& [flag, value] : {std::pair{"--kms-keyring", &raw.kms_keyring},
                                      std::pair{"--kms-location", &raw.kms_location},
                                      std::pair{"--kms-project", &raw.kms_project}}) {
      if (value->has_value()) {
        return Status::InvalidArgument(
            fmt::format("argument {}: --kms-key must be specified.", flag));
      }
    }
    return std::optional<std::string>();
  }
  static const std::regex kFullName(
      "^projects/[^/]+/locations/[^/]+/keyRings/[^/]+/cryptoKeys/[^/]+$");
  if (std::regex_match(*raw.kms_key, kFullName)) {
    return std::optional<std::string>(*raw.kms_key);
  }
  if (raw.kms_key->find('/') == std::string::npos && !raw.kms_key->empty() && raw.kms_keyring &&
      raw.kms_location) {
    return std::optional<std::string>(fmt::format(
        "projects/{}/locations/{}/keyRings/{}/cryptoKeys/{}", raw.kms_project.value_or(raw.project),
        *raw.kms_location, *raw.kms_keyring, *raw.kms_key));
  }
  return Status::InvalidArgument(
      "Invalid value for [--kms-key]: Encryption key not fully specified.");
}

Status CheckFlagCombinations(const RawTrainingFlags& raw, const TrainingFlags& flags) {
  if (raw.async && raw.stream_logs) {
    return Status::InvalidArgument(
        "argument --async: At most one of --async | --stream-logs can be specified.");
  }
  // jobs_util.TrainingCustomInputServerConfig.ValidateConfig; only a flag's tier counts there.
  if (flags.master.image_uri && !flags.master.image_uri->empty() && flags.runtime_version &&
      !flags.runtime_version->empty()) {
    return Status::InvalidArgument("Only one of --master-image-uri, --runtime-version can be set.");
  }
  if (flags.scale_tier == model::ScaleTier::kCustom &&
      (!flags.master.machine_type || flags.master.machine_type->empty())) {
    return Status::InvalidArgument(
        "--master-machine-type is required if scale-tier is set to `CUSTOM`.");
  }
  return {};
}

// Sets the fields of one `*Config` that flags gave, creating the config only when needed
// (gcloud's arg_utils.SetFieldInMessage, which skips empty values).
void ApplyReplicaConfig(const ReplicaFlags& flags, const std::optional<std::string>& tpu_tf_version,
                        std::optional<model::ReplicaConfig>& config) {
  auto ensure = [&]() -> model::ReplicaConfig& {
    if (!config) {
      config.emplace();
    }
    return *config;
  };
  if (flags.image_uri && !flags.image_uri->empty()) {
    ensure().image_uri = *flags.image_uri;
  }
  if (flags.accelerator) {
    model::ReplicaConfig& replica = ensure();
    if (!replica.accelerator_config) {
      replica.accelerator_config.emplace();
    }
    replica.accelerator_config->type = flags.accelerator->type;
    replica.accelerator_config->count = flags.accelerator->count;
  }
  if (tpu_tf_version && !tpu_tf_version->empty()) {
    ensure().tpu_tf_version = *tpu_tf_version;
  }
}

template <typename T>
void SetIfGiven(const std::optional<T>& flag, T& field) {
  if (flag) {
    field = *flag;
  }
}

}  // namespace

Result<TrainingFlags> ParseTrainingFlags(const RawTrainingFlags& raw,
                                         const catalog::Catalog& catalog) {
  Status error;
  TrainingFlags flags;
  flags.job_id = raw.job_id;
  flags.project = raw.project;
  flags.region = raw.region;
  flags.config_path = raw.config;
  flags.scale_tier =
      Convert<model::ScaleTier>(raw.scale_tier, "--scale-tier", ParseScaleTier, error);
  flags.master = ConvertReplica(raw.master, "--master", /*counted=*/false, catalog, error);
  flags.worker = ConvertReplica(raw.worker, "--worker", /*counted=*/true, catalog, error);
  flags.parameter_server =
      ConvertReplica(raw.parameter_server, "--parameter-server", /*counted=*/true, catalog, error);
  flags.evaluator = ConvertReplica(raw.evaluator, "--evaluator", /*counted=*/true, catalog, error);
  flags.tpu_tf_version = raw.tpu_tf_version;
  flags.use_chief_in_tf_config =
      Convert<bool>(raw.use_chief_in_tf_config, "--use-chief-in-tf-config", ParseBoolean, error);
  flags.job_dir = Convert<ObjectRef>(
      raw.job_dir, "--job-dir",
      [](const std::string& text) { return ParseObjectUrl(text, /*allow_empty_object=*/true); },
      error);
  flags.module_name = raw.module_name;
  flags.package_path = raw.package_path;
  flags.packages = SplitList(raw.packages.value_or(""));
  flags.staging_bucket =
      Convert<std::string>(raw.staging_bucket, "--staging-bucket", ParseStagingBucket, error);
  flags.runtime_version = raw.runtime_version;
  flags.python_version = raw.python_version;
  flags.network = raw.network;
  if (raw.service_account && error.ok()) {
    Status status = CheckServiceAccount(*raw.service_account);
    if (!status.ok()) {
      error = ArgumentError("--service-account", status);
    }
  }
  flags.service_account = raw.service_account;
  if (!raw.labels.empty() && error.ok()) {
    auto labels = MergeLabelFlags(raw.labels, "--labels");
    if (labels.ok()) {
      flags.labels = *std::move(labels);
    } else {
      error = labels.status();
    }
  }
  flags.enable_web_access = raw.enable_web_access;
  flags.async = raw.async;
  flags.stream_logs = raw.stream_logs;
  flags.user_args = raw.user_args;
  if (!error.ok()) {
    return error;
  }
  TY_RETURN_IF_ERROR(CheckFlagCombinations(raw, flags));
  auto kms = ResolveKmsKey(raw);
  if (!kms.ok()) {
    return kms.status();
  }
  flags.kms_key_name = *kms;
  return flags;
}

model::Job ApplyTrainingFlags(model::Job base, const TrainingFlags& flags,
                              std::vector<std::string> package_uris) {
  model::Job job = std::move(base);
  job.job_id = flags.job_id;
  SetIfGiven(flags.labels, job.labels);
  if (!job.training_input) {
    job.training_input.emplace();
  }
  model::TrainingInput& input = *job.training_input;
  SetIfGiven(flags.module_name, input.python_module);
  SetIfGiven(flags.user_args, input.args);
  input.package_uris = std::move(package_uris);
  SetIfGiven(flags.region, input.region);
  if (flags.job_dir) {
    input.job_dir = flags.job_dir->Url();
  }
  SetIfGiven(flags.scale_tier, input.scale_tier);
  SetIfGiven(flags.runtime_version, input.runtime_version);
  SetIfGiven(flags.python_version, input.python_version);
  SetIfGiven(flags.network, input.network);
  SetIfGiven(flags.service_account, input.service_account);
  input.enable_web_access = flags.enable_web_access;
  if (flags.kms_key_name) {
    if (!input.encryption_config) {
      input.encryption_config.emplace();
    }
    input.encryption_config->kms_key_name = *flags.kms_key_name;
  }

  ApplyReplicaConfig(flags.master, std::nullopt, input.master_config);
  SetIfGiven(flags.master.machine_type, input.master_type);
  ApplyReplicaConfig(flags.parameter_server, std::nullopt, input.parameter_server_config);
  SetIfGiven(flags.parameter_server.count, input.parameter_server_count);
  SetIfGiven(flags.parameter_server.machine_type, input.parameter_server_type);
  ApplyReplicaConfig(flags.worker, flags.tpu_tf_version, input.worker_config);
  SetIfGiven(flags.worker.count, input.worker_count);
  SetIfGiven(flags.worker.machine_type, input.worker_type);
  ApplyReplicaConfig(flags.evaluator, std::nullopt, input.evaluator_config);
  SetIfGiven(flags.evaluator.count, input.evaluator_count);
  SetIfGiven(flags.evaluator.machine_type, input.evaluator_type);
  SetIfGiven(flags.use_chief_in_tf_config, input.use_chief_in_tf_config);
  return job;
}

Status CheckHasPackages(const model::Job& job) {
  const bool has_packages = job.training_input && !job.training_input->package_uris.empty();
  const bool is_container = job.training_input && job.training_input->master_config &&
                            !job.training_input->master_config->image_uri.empty();
  if (has_packages || is_container) {
    return {};
  }
  return Status::InvalidArgument("Non-custom jobs must have packages.");
}

}  // namespace trainyard::cli
