#include "control/replica_container.h"

#include <filesystem>
#include <system_error>

#include <fmt/format.h>

namespace trainyard::control {
namespace {

// The view's paths at their own places, the bucket store's also below /gcs; trainyard's modules
// (`runtime_modules`) only where the container has them, kRuntimeModulesInContainer.
// The view's paths are absolute and normal (run/view_paths.h); `gcs_mount` is made so.
void AddViewMounts(const run::FileView& view, const std::string& gcs_mount,
                   const std::string& runtime_modules, std::vector<run::Mount>& mounts) {
  std::error_code error;
  std::string store =
      gcs_mount.empty() ? "" : std::filesystem::absolute(gcs_mount, error).lexically_normal();
  while (store.size() > 1 && store.ends_with('/')) {
    store.pop_back();
  }
  for (const std::string& path : view.writable) {
    mounts.push_back(run::Mount{.source = path, .target = path});
  }
  for (const std::string& path : view.writable) {
    if (!store.empty() && path.size() > store.size() + 1 && path.starts_with(store) &&
        path[store.size()] == '/') {
      mounts.push_back(run::Mount{
          .source = path, .target = std::string(kGcsMountInContainer) + path.substr(store.size())});
    }
  }
  for (const std::string& path : view.readable) {
    if (path != runtime_modules) {  // mounted at kRuntimeModulesInContainer instead
      mounts.push_back(run::Mount{.source = path, .target = path, .read_only = true});
    }
  }
}

}  // namespace

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
  if (context.view) {
    AddViewMounts(*context.view, context.gcs_mount, context.runtime_modules, spec.mounts);
  } else if (!context.gcs_mount.empty()) {
    spec.mounts.push_back(run::Mount{.source = context.gcs_mount, .target = context.gcs_mount});
    spec.mounts.push_back(
        run::Mount{.source = context.gcs_mount, .target = std::string(kGcsMountInContainer)});
  }
  if (!context.hp_metric_dir.empty() && !context.view) {
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
