#include "control/replica_container.h"

#include <fmt/format.h>

namespace trainyard::control {

std::string ContainerName(const ContainerContext& context, std::string_view task_name) {
  return context.trial_id.empty()
             ? fmt::format("trainyard-{}-{}-{}", context.project, context.job_id, task_name)
             : fmt::format("trainyard-{}-{}-trial-{}-{}", context.project, context.job_id,
                           context.trial_id, task_name);
}

run::ContainerSpec ReplicaContainer(const plan::ContainerLaunch& launch, std::string_view task_name,
                                    const ContainerContext& context) {
  run::ContainerSpec spec{
      .image = launch.image,
      .entrypoint = launch.command,
      .args = launch.args,
      .name = ContainerName(context, task_name),
      .labels = {{"trainyard.project", context.project}, {"trainyard.job", context.job_id}},
      .mounts = {},
      .device_indices = context.device_indices};
  if (!context.trial_id.empty()) {
    spec.labels.emplace_back("trainyard.trial", context.trial_id);
  }
  spec.labels.emplace_back("trainyard.task", task_name);
  if (!context.gcs_mount.empty()) {
    spec.mounts.push_back(run::Mount{.source = context.gcs_mount, .target = context.gcs_mount});
    spec.mounts.push_back(
        run::Mount{.source = context.gcs_mount, .target = std::string(kGcsMountInContainer)});
  }
  if (!context.hp_metric_dir.empty()) {
    spec.mounts.push_back(
        run::Mount{.source = context.hp_metric_dir, .target = context.hp_metric_dir});
  }
  std::string_view modules = context.runtime_modules;
  while (!modules.empty()) {
    const std::size_t colon = modules.find(':');
    std::string dir(modules.substr(0, colon));
    modules = colon == std::string_view::npos ? std::string_view() : modules.substr(colon + 1);
    if (!dir.empty()) {
      spec.mounts.push_back(run::Mount{.source = dir, .target = dir, .read_only = true});
    }
  }
  return spec;
}

}  // namespace trainyard::control
