// What Vertex AI gives a custom job's replicas (`model::JobExtras::vertex`;
// docs/reference/ai-platform-training.md §13) instead of AI Platform's CLUSTER_SPEC, plus the
// output directories. Pure.
//
// - CLUSTER_SPEC: {"cluster": {"workerpool0": [...], "workerpool1": [...], …}, "environment":
//   "cloud", "task": {"type": "workerpoolN", "index": i[, "trial": "T"]}, "job": <the jobSpec>}:
//   every pool that has replicas, evaluators (pool 3) included, keyed by pool.
// - TF_CONFIG stays TensorFlow's (chief / worker / ps, evaluators only as their own task) with
//   the primary always "chief", and `job` is the jobSpec as well.
// - AIP_MODEL_DIR, AIP_CHECKPOINT_DIR, AIP_TENSORBOARD_LOG_DIR: `<base>/model/`,
//   `<base>/checkpoints/`, `<base>/logs/` of jobSpec.baseOutputDirectory, or
//   `<base>/<trial>/model/` … in a tuning trial; none without a base directory. They are gs://
//   URIs as on Vertex; replicas read and write them as files through the /gcs/ mount (containers)
//   or the bucket directory.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/job_extras.h"
#include "plan/cluster_json.h"

namespace trainyard::plan {

// The jobSpec the replicas are told about: a CustomJob's jobSpec, a tuning job's trialJobSpec
// (from `VertexResource::document`; an empty object when it cannot be read).
nlohmann::ordered_json VertexJobSpec(const model::VertexResource& vertex);

std::string VertexClusterSpec(const internal::ClusterMembers& members,
                              const internal::TaskRef& task, const nlohmann::ordered_json& job);

std::vector<std::pair<std::string, std::string>> VertexOutputVariables(
    const model::VertexResource& vertex, std::string_view trial_id);

}  // namespace trainyard::plan
