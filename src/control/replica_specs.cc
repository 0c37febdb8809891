#include "control/replica_specs.h"

#include <utility>

#include "control/job_layout.h"
#include "control/replica_container.h"

namespace trainyard::control {

Result<std::vector<Result<run::ProcessSpec>>> BuildReplicaSpecs(
    const model::Job& job, const std::vector<plan::ReplicaShape>& shapes,
    const std::vector<plan::ReplicaPlacement>& placements, const plan::PlanContext& context,
    const ReplicaFiles& files, const catalog::Catalog& catalog) {
  Result<std::vector<plan::ReplicaLaunch>> launches =
      plan::BuildClusterPlan(job, shapes, placements, context, catalog);
  if (!launches.ok()) {
    return launches.status();
  }
  const std::string& job_id = context.job_id.empty() ? job.job_id : context.job_id;
  const JobLayout layout(files.data_dir, files.project, job_id, context.trial_id);
  std::vector<Result<run::ProcessSpec>> specs;
  for (std::size_t i = 0; i < launches->size(); ++i) {
    plan::ReplicaLaunch& launch = (*launches)[i];
    run::ProcessSpec spec{.argv = std::move(launch.argv),
                          .env = std::move(launch.env),
                          .working_dir = launch.working_dir.empty()
                                             ? layout.working_dir(launch.task_name)
                                             : std::move(launch.working_dir),
                          .log_path = layout.log_path(launch.task_name),
                          .exit_path = layout.exit_path(launch.task_name),
                          .container = std::nullopt};
    if (!launch.container || context.containers_on_host) {
      spec.view = files.view;  // a host process; a container's mounts are its view
    }
    if (launch.container && context.containers_on_host) {
      Result<std::vector<std::string>> command = HostCommand(*launch.container, launch.task_name);
      if (!command.ok()) {
        specs.emplace_back(command.status());
        continue;
      }
      spec.argv = std::move(*command);
    } else if (launch.container) {
      const plan::ReplicaPlacement& placement = placements[i];
      spec.container = ReplicaContainer(
          *launch.container, launch.task_name,
          ContainerContext{
              .project = files.project,
              .job_id = job_id,
              .trial_id = context.trial_id,
              .gcs_mount = context.gcs_mount,
              .hp_metric_dir = context.hp_metric_dir,
              .runtime_modules = context.runtime_modules,
              .device_indices = placement.emulated ? std::vector<int>() : placement.device_indices,
              .view = files.view});
    }
    specs.emplace_back(std::move(spec));
  }
  return specs;
}

}  // namespace trainyard::control
