#include "plan/cluster_json.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "base/check.h"
#include "model/json_codec.h"

namespace trainyard::plan::internal {
namespace {

using nlohmann::ordered_json;

// "bootDiskSizeGb" -> "boot_disk_size_gb": proto3 JSON names are the lowerCamelCase of the
// proto field names, so this inverts the mapping exactly.
std::string SnakeCase(std::string_view camel) {
  std::string out;
  out.reserve(camel.size() + 4);
  for (const char c : camel) {
    if (std::isupper(static_cast<unsigned char>(c)) != 0) {
      out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

ordered_json SnakeCaseKeys(const ordered_json& value) {
  if (value.is_object()) {
    ordered_json out = ordered_json::object();
    for (const auto& [key, item] : value.items()) {
      out[SnakeCase(key)] = SnakeCaseKeys(item);
    }
    return out;
  }
  if (value.is_array()) {
    ordered_json out = ordered_json::array();
    for (const ordered_json& item : value) {
      out.push_back(SnakeCaseKeys(item));
    }
    return out;
  }
  return value;
}

ordered_json Task(std::string_view type, const TaskRef& task) {
  ordered_json out = ordered_json::object();
  out["type"] = type;
  out["index"] = task.index;
  if (!task.trial.empty()) {
    out["trial"] = task.trial;
  }
  return out;
}

void AddMembers(ordered_json& cluster, std::string_view key,
                const std::vector<std::string>& addresses) {
  if (!addresses.empty()) {
    cluster[std::string(key)] = addresses;
  }
}

}  // namespace

ordered_json SnakeCaseTrainingInput(const model::TrainingInput& input) {
  const ordered_json camel =
      ordered_json::parse(model::EncodeTrainingInput(input), nullptr, /*allow_exceptions=*/false);
  TY_CHECK(!camel.is_discarded()) << "model::EncodeTrainingInput produced invalid JSON";
  return SnakeCaseKeys(camel);
}

std::string Dump(const ordered_json& value) {
  return value.dump(-1, ' ', /*ensure_ascii=*/false, ordered_json::error_handler_t::replace);
}

std::string TfConfig(const ClusterMembers& members, std::string_view primary_name,
                     const TaskRef& task, const ordered_json& job) {
  ordered_json cluster = ordered_json::object();
  AddMembers(cluster, primary_name, members.master);
  AddMembers(cluster, RoleName(Role::kWorker), members.worker);
  AddMembers(cluster, RoleName(Role::kParameterServer), members.ps);

  ordered_json config = ordered_json::object();
  config["cluster"] = std::move(cluster);
  config["task"] = Task(task.role == Role::kMaster ? primary_name : RoleName(task.role), task);
  config["job"] = job;
  config["environment"] = "cloud";
  return Dump(config);
}

std::string ClusterSpec(const ClusterMembers& members, const TaskRef& task,
                        const std::string& job_text) {
  ordered_json cluster = ordered_json::object();
  AddMembers(cluster, RoleName(Role::kMaster), members.master);
  AddMembers(cluster, RoleName(Role::kWorker), members.worker);
  AddMembers(cluster, RoleName(Role::kParameterServer), members.ps);
  AddMembers(cluster, RoleName(Role::kEvaluator), members.evaluator);

  ordered_json spec = ordered_json::object();
  spec["cluster"] = std::move(cluster);
  spec["task"] = Task(RoleName(task.role), task);
  spec["job"] = job_text;
  spec["environment"] = "cloud";
  return Dump(spec);
}

}  // namespace trainyard::plan::internal
