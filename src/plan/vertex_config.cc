#include "plan/vertex_config.h"

#include <array>

#include <fmt/format.h>

namespace trainyard::plan {

using nlohmann::ordered_json;

ordered_json VertexJobSpec(const model::VertexResource& vertex) {
  ordered_json document = ordered_json::parse(vertex.document, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    return ordered_json::object();
  }
  if (vertex.kind == "HyperparameterTuningJob") {
    const auto trial = document.find("trialJobSpec");
    return trial != document.end() && trial->is_object() ? *trial : ordered_json::object();
  }
  return document;
}

std::string VertexClusterSpec(const internal::ClusterMembers& members,
                              const internal::TaskRef& task, const ordered_json& job) {
  const std::array<const std::vector<std::string>*, 4> pools = {&members.master, &members.worker,
                                                                &members.ps, &members.evaluator};
  ordered_json cluster = ordered_json::object();
  for (std::size_t pool = 0; pool < pools.size(); ++pool) {
    if (!pools[pool]->empty()) {
      cluster[fmt::format("workerpool{}", pool)] = *pools[pool];
    }
  }
  ordered_json task_value = ordered_json::object();
  task_value["type"] = fmt::format("workerpool{}", VertexPool(task.role));
  task_value["index"] = task.index;
  if (!task.trial.empty()) {
    task_value["trial"] = task.trial;
  }
  ordered_json spec = ordered_json::object();
  spec["cluster"] = std::move(cluster);
  spec["environment"] = "cloud";
  spec["task"] = std::move(task_value);
  spec["job"] = job;
  return internal::Dump(spec);
}

std::vector<std::pair<std::string, std::string>> VertexOutputVariables(
    const model::VertexResource& vertex, std::string_view trial_id) {
  std::vector<std::pair<std::string, std::string>> out;
  if (vertex.base_output_directory.empty()) {
    return out;
  }
  std::string base = vertex.base_output_directory;
  while (base.ends_with('/')) {
    base.pop_back();
  }
  if (!trial_id.empty()) {
    base = fmt::format("{}/{}", base, trial_id);
  }
  out.emplace_back("AIP_MODEL_DIR", base + "/model/");
  out.emplace_back("AIP_CHECKPOINT_DIR", base + "/checkpoints/");
  out.emplace_back("AIP_TENSORBOARD_LOG_DIR", base + "/logs/");
  return out;
}

}  // namespace trainyard::plan
