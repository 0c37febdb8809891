// The JSON values AI Platform gives replicas (docs/reference/ai-platform-training.md §7.2–§7.4),
// internal to plan/: the job's TrainingInput with snake_case keys, TF_CONFIG and CLUSTER_SPEC.
// Deterministic: keys are emitted in a fixed order, output is compact. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/job.h"
#include "plan/replicas.h"

namespace trainyard::plan::internal {

// `input` as proto3 JSON (model's encoder: schema order, unset fields left out, int64 as strings)
// with every object key turned from camelCase into the proto field name ("jobDir" -> "job_dir").
// TrainingInput holds no map with user-chosen keys, so every key is a field name.
nlohmann::ordered_json SnakeCaseTrainingInput(const model::TrainingInput& input);

// Compact text; invalid UTF-8 in user strings is replaced, never thrown on.
std::string Dump(const nlohmann::ordered_json& value);

// Every replica's "host:port", by role, each in index order.
struct ClusterMembers {
  std::vector<std::string> master;
  std::vector<std::string> worker;
  std::vector<std::string> ps;
  std::vector<std::string> evaluator;
};

// One replica's view of its task.
struct TaskRef {
  Role role = Role::kMaster;
  int index = 0;
  std::string_view trial;  // "" outside tuning trials
};

// docs/reference/ai-platform-training.md §7.2: {"cluster", "task", "job", "environment": "cloud"}.
// `cluster` names the master `primary_name` ("chief" or "master") and has a key only for roles that
// exist; evaluators are never in it. `task.type` of the master is `primary_name`.
std::string TfConfig(const ClusterMembers& members, std::string_view primary_name,
                     const TaskRef& task, const nlohmann::ordered_json& job);

// docs/reference/ai-platform-training.md §7.3: as TF_CONFIG, but `cluster` always says "master" and
// lists evaluators, and `job` is the TrainingInput as a JSON string.
std::string ClusterSpec(const ClusterMembers& members, const TaskRef& task,
                        const std::string& job_text);

}  // namespace trainyard::plan::internal
