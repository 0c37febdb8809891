#include "plan/local_train.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "plan/cluster_json.h"

namespace trainyard::plan {
namespace {

using nlohmann::ordered_json;

std::vector<std::string> Addresses(int first_port, int count) {
  std::vector<std::string> addresses;
  addresses.reserve(count);
  for (int i = 0; i < count; ++i) {
    addresses.push_back(fmt::format("localhost:{}", first_port + i));
  }
  return addresses;
}

}  // namespace

// docs/reference/ai-platform-training.md §8, as gcloud's local_train.py builds it: `job` and
// `cluster` are the same for every process, `task` is {} when not distributed, and with
// --distributed the cluster always has the primary, "ps" and "worker" keys (a list may be empty).
std::vector<ReplicaLaunch> BuildLocalTrainPlan(const LocalTrainOptions& options) {
  std::vector<std::string> args = options.user_args;
  if (!options.job_dir.empty()) {
    args.emplace_back("--job-dir");
    args.push_back(options.job_dir);
  }
  std::vector<std::string> argv = {options.python, "-m", options.module_name};
  argv.insert(argv.end(), args.begin(), args.end());

  ordered_json job = ordered_json::object();
  job["job_name"] = options.module_name;
  job["args"] = args;

  ordered_json cluster = ordered_json::object();
  struct Group {
    Role role;
    int count;
  };
  std::vector<Group> groups = {{Role::kMaster, 1}};
  if (options.distributed) {
    const int ps = options.parameter_server_count;
    cluster[options.primary_name] = Addresses(options.start_port, 1);
    cluster["ps"] = Addresses(options.start_port + 1, ps);
    cluster["worker"] = Addresses(options.start_port + 1 + ps, options.worker_count);
    groups.push_back({Role::kParameterServer, ps});
    groups.push_back({Role::kWorker, options.worker_count});
    groups.push_back({Role::kEvaluator, options.evaluator_count});
  }

  std::vector<ReplicaLaunch> launches;
  for (const Group& group : groups) {
    for (int index = 0; index < group.count; ++index) {
      ordered_json task = ordered_json::object();
      if (options.distributed) {
        task["type"] = group.role == Role::kMaster ? std::string_view(options.primary_name)
                                                   : RoleName(group.role);
        task["index"] = index;
      }
      ordered_json config = ordered_json::object();
      config["job"] = job;
      config["task"] = std::move(task);
      config["cluster"] = cluster;
      config["environment"] = "cloud";
      launches.push_back(ReplicaLaunch{.task_name = TaskName(group.role, index),
                                       .role = group.role,
                                       .index = index,
                                       .argv = argv,
                                       .env = {{"TF_CONFIG", internal::Dump(config)}}});
    }
  }
  return launches;
}

}  // namespace trainyard::plan
