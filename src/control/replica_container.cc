#include "control/replica_container.h"

#include <fmt/format.h>

namespace trainyard::control {

std::string ContainerName(const ContainerContext& context, std::string_view task_name) {
  return context.trial_id.empty()
             ? fmt::format("trainyard-{}-{}-{}", context.project, context.job_id, task_name)
             : fmt::format("trainyard-{}-{}-trial-{}-{}", context.project, context.job_id,
                           context.trial_id, task_name);
}

Result<std::vector<std::string>> HostCommand(const plan::ContainerLaunch& launch,
                                             std::string_view task_name) {
  if (launch.command.empty()) {
    return Status::FailedPrecondition(fmt::format(
        "Replica {} uses the image {} without a containerCommand: this server runs container "
        "replicas' commands on the host (--containers host), not their images. Set "
        "containerCommand, or use a server that runs images.",
        task_name, launch.image));
  }
  std::vector<std::string> argv = launch.command;
  argv.insert(argv.end(), launch.args.begin(), launch.args.end());
  return argv;
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
      .device_indices = context.device_indices,
      .working_dir = launch.working_dir,
      .hosts = launch.hosts};
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
  if (!context.runtime_modules.empty()) {
    spec.mounts.push_back(run::Mount{.source = context.runtime_modules,
                                     .target = std::string(kRuntimeModulesInContainer),
                                     .read_only = true});
  }
  return spec;
}

}  // namespace trainyard::control
