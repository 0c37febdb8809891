// `gcloud ai-platform local train`'s cluster (docs/reference/ai-platform-training.md §8), for
// `trainyard local train`: the same processes and the same TF_CONFIG shape gcloud makes, so a
// trainer behaves identically under either. Pure.
#pragma once

#include <string>
#include <vector>

#include "plan/cluster_plan.h"

namespace trainyard::plan {

struct LocalTrainOptions {
  std::string module_name;
  std::vector<std::string> user_args;
  std::string job_dir;  // "" when not given
  bool distributed = false;
  int worker_count = 2;            // only with `distributed`
  int parameter_server_count = 2;  // only with `distributed`
  int evaluator_count = 0;         // only with `distributed`
  int start_port = 27182;
  std::string python = "python3";
  std::string primary_name = "chief";  // or "master" (TF 1.x)
};

// The primary first, then parameter servers, workers and evaluators, with role kMaster for the
// primary and task names as `TaskName`. (gcloud starts the others in that order and the primary
// last, in the foreground; its exit code is the command's.) Each runs
// `python -m module user_args… [--job-dir D]`. Ports are contiguous from `start_port` (primary,
// ps…, workers…) on "localhost"; evaluators get none and are not in `cluster`. With `distributed`
// the cluster always has the primary, "ps" and "worker" keys (lists may be empty), as gcloud's;
// without it only the primary runs, with `task` and `cluster` both {}. Only TF_CONFIG is set, as
// {"job", "task", "cluster", "environment": "cloud"}; `job` is {"job_name", "args"} with the
// --job-dir pair appended to args.
std::vector<ReplicaLaunch> BuildLocalTrainPlan(const LocalTrainOptions& options);

}  // namespace trainyard::plan
