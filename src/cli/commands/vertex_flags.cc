#include "cli/commands/vertex_flags.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands/flag_values.h"
#include "cli/commands/vertex_config.h"

namespace trainyard::cli {
namespace {

using nlohmann::json;

constexpr std::string_view kPoolFlag = "--worker-pool-spec";

enum class KeyType { kString, kInteger, kList };

// gcloud's ArgDict spec for `--worker-pool-spec` (custom_jobs/flags.py); lists split at ';'.
constexpr std::array<std::pair<std::string_view, KeyType>, 13> kPoolKeys = {{
    {"accelerator-count", KeyType::kInteger},
    {"accelerator-type", KeyType::kString},
    {"container-image-uri", KeyType::kString},
    {"executor-image-uri", KeyType::kString},
    {"extra-dirs", KeyType::kList},
    {"extra-packages", KeyType::kList},
    {"local-package-path", KeyType::kString},
    {"machine-type", KeyType::kString},
    {"output-image-uri", KeyType::kString},
    {"python-module", KeyType::kString},
    {"replica-count", KeyType::kInteger},
    {"requirements", KeyType::kList},
    {"script", KeyType::kString},
}};

// Keys that only go with `local-package-path` (validation.py).
constexpr std::array<std::string_view, 4> kLocalPackageOnlyKeys = {"extra-dirs", "extra-packages",
                                                                   "requirements", "script"};

// hp-tuning `--algorithm` choices (ChoiceEnumMapper over StudySpec.AlgorithmValueValuesEnum).
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kAlgorithms = {{
    {"algorithm-unspecified", "ALGORITHM_UNSPECIFIED"},
    {"grid-search", "GRID_SEARCH"},
    {"random-search", "RANDOM_SEARCH"},
}};

// The first column of a table of pairs: the names a message lists.
template <typename Table>
std::vector<std::string_view> Names(const Table& table) {
  std::vector<std::string_view> names;
  names.reserve(table.size());
  for (const auto& row : table) {
    names.push_back(row.first);
  }
  return names;
}

std::optional<std::int64_t> ParseInt(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

Status InvalidPool(std::string_view message) {
  return Status::InvalidArgument(fmt::format("Invalid value for [{}]: {}", kPoolFlag, message));
}

const std::string* Find(const WorkerPoolFlag& pool, std::string_view key) {
  const auto found = std::ranges::find(pool, key, &std::pair<std::string, std::string>::first);
  return found == pool.end() ? nullptr : &found->second;
}

bool Has(const WorkerPoolFlag& pool, std::string_view key) {
  return Find(pool, key) != nullptr;
}

// `_ValidateHardwareInWorkerPoolSpecArgs` for one pool.
Status CheckHardware(const WorkerPoolFlag& pool) {
  if (!Has(pool, "machine-type")) {
    return InvalidPool("Key [machine-type] required in dict arg but not provided.");
  }
  if (Has(pool, "accelerator-count") && !Has(pool, "accelerator-type")) {
    return InvalidPool("Key [accelerator-type] required as [accelerator-count] is specified.");
  }
  const std::string* type = Find(pool, "accelerator-type");
  const std::vector<std::string>& types = VertexAcceleratorTypes();
  if (type != nullptr && !type->empty() && std::ranges::find(types, *type) == types.end()) {
    return InvalidPool(
        fmt::format("Found invalid value of [accelerator-type]: {}. Available values "
                    "are [{}].",
                    *type, fmt::join(types, ", ")));
  }
  return {};
}

// `_ValidateWorkerPoolSoftwareWithoutLocalPackages`.
Status CheckSoftware(const WorkerPoolFlag& pool) {
  const bool executor = Has(pool, "executor-image-uri");
  const bool container = Has(pool, "container-image-uri");
  if (executor == container) {
    return InvalidPool(
        "Exactly one of keys [executor-image-uri, container-image-uri] is required.");
  }
  if (container && Has(pool, "python-module")) {
    return InvalidPool(
        "Key [python-module] is not allowed together with key [container-image-uri].");
  }
  if (executor && !Has(pool, "python-module")) {
    return InvalidPool("Key [python-module] is required.");
  }
  std::vector<std::string_view> unexpected;
  for (std::string_view key : kLocalPackageOnlyKeys) {
    if (Has(pool, key)) {
      unexpected.push_back(key);
    }
  }
  if (!unexpected.empty()) {
    return InvalidPool(
        fmt::format("Keys [{}] are not allowed: Only allow to specify together with "
                    "`local-package-path` in the first `--worker-pool-spec` flag.",
                    fmt::join(unexpected, ", ")));
  }
  return {};
}

Status CheckPools(const std::vector<WorkerPoolFlag>& pools) {
  if (pools.front().empty()) {
    return InvalidPool("Empty value is not allowed for the first `--worker-pool-spec` flag.");
  }
  for (const WorkerPoolFlag& pool : pools) {
    if (!pool.empty()) {
      TY_RETURN_IF_ERROR(CheckHardware(pool));
    }
  }
  for (std::size_t i = 0; i < pools.size(); ++i) {
    if (pools[i].empty()) {
      continue;
    }
    if (Has(pools[i], "local-package-path")) {
      return InvalidPool(
          i == 0 ? "Key [local-package-path] is not supported: trainyard builds no images; build "
                   "and push the image yourself and give it as [container-image-uri]."
                 : "Key [local-package-path] is only allowed in the first `--worker-pool-spec` "
                   "flag.");
    }
    TY_RETURN_IF_ERROR(CheckSoftware(pools[i]));
  }
  return {};
}

// `_ValidateWorkerPoolSpecsFromConfig`: each pool of the file runs a container or a package.
Status CheckConfigPools(const json& spec) {
  const auto pools = spec.find("workerPoolSpecs");
  if (pools == spec.end() || !pools->is_array()) {
    return {};
  }
  const auto truthy = [](const json& object, std::string_view key) {
    if (!object.is_object()) {
      return false;
    }
    const auto value = object.find(std::string(key));
    return value != object.end() && value->is_string() && !value->get<std::string>().empty();
  };
  for (const json& pool : *pools) {
    const json python = pool.is_object() ? pool.value("pythonPackageSpec", json()) : json();
    const json container = pool.is_object() ? pool.value("containerSpec", json()) : json();
    const bool use_python = truthy(python, "executorImageUri") || truthy(python, "pythonModule");
    const bool use_container = truthy(container, "imageUri");
    if (use_python == use_container) {
      return Status::InvalidArgument(
          "Invalid value for [--config]: Exactly one of fields [pythonPackageSpec, "
          "containerSpec] is required for a [workerPoolSpecs] in the YAML config file.");
    }
  }
  return {};
}

// `_ConstructSingleWorkerPoolSpec`.
json PoolSpec(const WorkerPoolFlag& pool, const std::vector<std::string>& package_uris) {
  json spec = json::object();
  if (pool.empty()) {
    return spec;
  }
  json machine = {{"machineType", *Find(pool, "machine-type")}};
  if (const std::string* type = Find(pool, "accelerator-type"); type != nullptr && !type->empty()) {
    machine["acceleratorType"] = *type;
    const std::string* count = Find(pool, "accelerator-count");
    machine["acceleratorCount"] = count != nullptr ? *ParseInt(*count) : 1;
  }
  spec["machineSpec"] = std::move(machine);
  const std::string* replicas = Find(pool, "replica-count");
  spec["replicaCount"] = std::to_string(replicas != nullptr ? *ParseInt(*replicas) : 1);
  const std::string* image = Find(pool, "container-image-uri");
  const std::string* executor = Find(pool, "executor-image-uri");
  const std::string* module = Find(pool, "python-module");
  if (image != nullptr && !image->empty()) {
    spec["containerSpec"] = {{"imageUri", *image}};
  } else if (!package_uris.empty() || (executor != nullptr && !executor->empty()) ||
             (module != nullptr && !module->empty())) {
    json python = json::object();
    if (executor != nullptr) {
      python["executorImageUri"] = *executor;
    }
    if (!package_uris.empty()) {
      python["packageUris"] = package_uris;
    }
    if (module != nullptr) {
      python["pythonModule"] = *module;
    }
    spec["pythonPackageSpec"] = std::move(python);
  }
  return spec;
}

// Every occurrence of an ArgList flag with UpdateAction, concatenated.
std::vector<std::string> JoinLists(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& value : values) {
    for (std::string& item : SplitList(value)) {
      out.push_back(std::move(item));
    }
  }
  return out;
}

Result<json> Labels(const VertexCommonFlags& flags) {
  auto labels = MergeLabelFlags(flags.labels, "--labels");
  if (!labels.ok()) {
    return labels.status();
  }
  return json(*labels);
}

Status CheckCommon(const VertexCommonFlags& flags) {
  if (flags.service_account) {
    if (Status valid = CheckServiceAccount(*flags.service_account); !valid.ok()) {
      return Status::InvalidArgument("argument --service-account: " + valid.message());
    }
  }
  return {};
}

Result<json> ReadConfig(const std::optional<std::string>& text, std::string_view message,
                        const std::string& path) {
  if (!text) {
    return json::object();
  }
  return ParseVertexConfig(*text, message, path);
}

std::string Dump(const json& body) {
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

// argparse's `type=int`.
Result<std::optional<std::int64_t>> IntFlag(const std::optional<std::string>& text,
                                            std::string_view flag) {
  if (!text) {
    return std::optional<std::int64_t>();
  }
  const auto value = ParseInt(*text);
  if (!value) {
    return Status::InvalidArgument(
        fmt::format("argument {}: invalid int value: '{}'", flag, *text));
  }
  return std::optional<std::int64_t>(*value);
}

}  // namespace

Result<std::vector<WorkerPoolFlag>> ParseWorkerPoolFlags(const std::vector<std::string>& values) {
  std::vector<WorkerPoolFlag> pools;
  for (const std::string& value : values) {
    auto dict = ParseDict(value);
    if (!dict.ok()) {
      return Status::InvalidArgument(
          fmt::format("argument {}: {}", kPoolFlag, dict.status().message()));
    }
    for (const auto& [key, text] : *dict) {
      const auto spec =
          std::ranges::find(kPoolKeys, key, &std::pair<std::string_view, KeyType>::first);
      if (spec == kPoolKeys.end()) {
        return Status::InvalidArgument(fmt::format("argument {}: valid keys are [{}]; received: {}",
                                                   kPoolFlag, fmt::join(Names(kPoolKeys), ", "),
                                                   key));
      }
      if (spec->second == KeyType::kInteger && !ParseInt(text)) {
        return Status::InvalidArgument(
            fmt::format("argument {}: invalid value for key [{}]: '{}' is not an integer",
                        kPoolFlag, key, text));
      }
    }
    pools.push_back(*std::move(dict));
  }
  if (!pools.empty()) {
    TY_RETURN_IF_ERROR(CheckPools(pools));
  }
  return pools;
}

Result<std::string> CustomJobRequestBody(const CustomJobFlags& flags,
                                         const std::optional<std::string>& config_text,
                                         const std::string& config_path) {
  TY_RETURN_IF_ERROR(CheckCommon(flags.common));
  if (!config_text && flags.worker_pool_specs.empty()) {
    return Status::InvalidArgument("argument (--config --worker-pool-spec): Must be specified.");
  }
  auto pools = ParseWorkerPoolFlags(flags.worker_pool_specs);
  if (!pools.ok()) {
    return pools.status();
  }
  auto labels = Labels(flags.common);
  if (!labels.ok()) {
    return labels.status();
  }
  auto spec = ReadConfig(config_text, "CustomJobSpec", config_path);
  if (!spec.ok()) {
    return spec.status();
  }
  if (pools->empty()) {
    TY_RETURN_IF_ERROR(CheckConfigPools(*spec));
  }
  if (flags.common.network) {
    (*spec)["network"] = *flags.common.network;
  }
  if (flags.common.service_account) {
    (*spec)["serviceAccount"] = *flags.common.service_account;
  }
  if (flags.common.enable_web_access) {
    (*spec)["enableWebAccess"] = true;
  }
  if (flags.common.enable_dashboard_access) {
    (*spec)["enableDashboardAccess"] = true;
  }
  if (!pools->empty()) {
    const std::vector<std::string> package_uris = flags.python_package_uris.empty()
                                                      ? std::vector<std::string>()
                                                      : SplitList(flags.python_package_uris.back());
    json specs = json::array();
    for (const WorkerPoolFlag& pool : *pools) {
      specs.push_back(PoolSpec(pool, package_uris));
    }
    (*spec)["workerPoolSpecs"] = std::move(specs);
  }
  const std::vector<std::string> args = JoinLists(flags.args);
  const std::vector<std::string> command = JoinLists(flags.command);
  if (auto specs = spec->find("workerPoolSpecs"); specs != spec->end() && specs->is_array()) {
    for (json& pool : *specs) {
      if (!pool.is_object()) {
        continue;
      }
      for (const char* kind : {"containerSpec", "pythonPackageSpec"}) {
        if (pool.contains(kind) && pool[kind].is_object() && !args.empty()) {
          pool[kind]["args"] = args;
        }
      }
      if (pool.contains("containerSpec") && pool["containerSpec"].is_object() && !command.empty()) {
        pool["containerSpec"]["command"] = command;
      }
    }
  }
  json body = {{"displayName", flags.common.display_name.value_or("")},
               {"jobSpec", *std::move(spec)}};
  if (!labels->empty()) {
    body["labels"] = *std::move(labels);
  }
  return Dump(body);
}

Result<std::string> HpTuningJobRequestBody(const HpTuningJobFlags& flags,
                                           const std::string& config_text,
                                           const std::string& config_path) {
  TY_RETURN_IF_ERROR(CheckCommon(flags.common));
  std::optional<std::string_view> algorithm;
  if (flags.algorithm) {
    const auto choice = std::ranges::find(kAlgorithms, *flags.algorithm,
                                          &std::pair<std::string_view, std::string_view>::first);
    if (choice == kAlgorithms.end()) {
      return Status::InvalidArgument(
          fmt::format("argument --algorithm: Invalid choice: '{}'.\nValid choices are [{}].",
                      *flags.algorithm, fmt::join(Names(kAlgorithms), ", ")));
    }
    algorithm = choice->second;
  }
  auto max_trials = IntFlag(flags.max_trial_count, "--max-trial-count");
  auto parallel_trials = IntFlag(flags.parallel_trial_count, "--parallel-trial-count");
  auto max_failed = IntFlag(flags.max_failed_trial_count, "--max-failed-trial-count");
  for (const auto* parsed : {&max_trials, &parallel_trials, &max_failed}) {
    if (!parsed->ok()) {
      return parsed->status();
    }
  }
  auto labels = Labels(flags.common);
  if (!labels.ok()) {
    return labels.status();
  }
  auto job = ParseVertexConfig(config_text, "HyperparameterTuningJob", config_path);
  if (!job.ok()) {
    return job.status();
  }
  // A count given by flag (not 0) wins; else the file's (not 0); else 1.
  const auto count = [&](const char* field, const std::optional<std::int64_t>& flag) {
    const json file = job->value(field, json());
    const bool file_set = file.is_number() && file.get<double>() != 0;
    if (flag && *flag != 0) {
      (*job)[field] = *flag;
    } else if (!file_set) {
      (*job)[field] = 1;
    }
  };
  count("maxTrialCount", *max_trials);
  count("parallelTrialCount", *parallel_trials);
  if (*max_failed) {
    (*job)["maxFailedTrialCount"] = **max_failed;
  }
  const VertexCommonFlags& common = flags.common;
  // The trial spec the flags go to (made when the file has none; a file's non-object is left
  // for the server to refuse).
  const auto trial_spec = [&]() -> json* {
    json& spec = (*job)["trialJobSpec"];
    if (spec.is_null()) {
      spec = json::object();
    }
    return spec.is_object() ? &spec : nullptr;
  };
  const auto set_in_trial_spec = [&](const char* field, json value) {
    if (json* spec = trial_spec(); spec != nullptr) {
      (*spec)[field] = std::move(value);
    }
  };
  if (common.network && !common.network->empty()) {
    set_in_trial_spec("network", *common.network);
  }
  if (common.service_account && !common.service_account->empty()) {
    set_in_trial_spec("serviceAccount", *common.service_account);
  }
  if (common.enable_web_access) {
    set_in_trial_spec("enableWebAccess", true);
  }
  if (common.enable_dashboard_access) {
    set_in_trial_spec("enableDashboardAccess", true);
  }
  if (common.display_name && !common.display_name->empty()) {
    (*job)["displayName"] = *common.display_name;
  }
  if (algorithm && job->contains("studySpec") && (*job)["studySpec"].is_object()) {
    (*job)["studySpec"]["algorithm"] = *algorithm;
  }
  if (!labels->empty()) {
    (*job)["labels"] = *std::move(labels);
  }
  return Dump(*job);
}

}  // namespace trainyard::cli
