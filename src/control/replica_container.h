// What a container replica is started as (run::ContainerSpec), from its plan
// (plan::ContainerLaunch), for control/replica_specs.h: shared by the executor and the node agent
// (`trainyard batch-task`) so a container runs the same locally and in a cluster task.
//
// - Named `trainyard-<project>-<job>[-trial-<n>]-<task>` (unique among live replicas, so a
//   restarted server finds it, and `--replace` clears a leftover), labelled trainyard.project,
//   trainyard.job, trainyard.trial (trials) and trainyard.task.
// - Mounts, with the replica's view (run/file_view.h, control/job_view.h: the local backend):
//   what the view shows and nothing else of the data directory, each path at its own place
//   (the `--job-dir` and CLOUD_ML_HP_METRIC_FILE trainyard passes are such paths), writable
//   ones read-write and readable ones read-only; a path in the bucket store (a project's bucket
//   `<gcs_mount>/<bucket>`, a job directory in another project's bucket) also below /gcs (Vertex
//   AI's convention: /gcs/<bucket>/<object>). A container has its own /tmp: the view's private
//   directories are not mounted.
//   Without a view (a cluster task): the whole bucket store at its own path and at /gcs, and a
//   trial's hypertune directory at its own path, read-write.
//   Either way trainyard's own Python modules (`hypertune`) at /opt/trainyard/python, read-only
//   (the image's PYTHONPATH is left alone: an image without cloudml-hypertune can put that
//   directory on it).
// - Devices: the placed GPUs, none when they are emulated.
// - The plan's working directory and hosts lines (a job with extras; plan/cluster_plan.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/cluster_plan.h"
#include "run/file_view.h"
#include "run/launcher.h"

namespace trainyard::control {

// Vertex AI's mount point for Cloud Storage inside a container.
inline constexpr std::string_view kGcsMountInContainer = "/gcs";
// Where trainyard's own Python modules are inside a container.
inline constexpr std::string_view kRuntimeModulesInContainer = "/opt/trainyard/python";

struct ContainerContext {
  std::string project;
  std::string job_id;
  std::string trial_id;               // "" unless a tuning trial
  std::string gcs_mount;              // the bucket store's root ("" for none)
  std::string hp_metric_dir;          // a trial's hypertune directory ("" for none)
  std::string runtime_modules;        // trainyard's Python modules directory ("" for none)
  std::vector<int> device_indices;    // the replica's GPUs on its node (real ones only)
  std::optional<run::FileView> view;  // what it may see (see above); unset: the bucket store
};

// The container name for a replica of the job (see above).
std::string ContainerName(const ContainerContext& context, std::string_view task_name);

// With `--containers host` (trusted setups, and benchmarks of trainyard's own overhead): the
// command a container replica runs on the host instead of its image, its containerCommand then
// its arguments. FAILED_PRECONDITION naming the replica and image when it has no command.
Result<std::vector<std::string>> HostCommand(const plan::ContainerLaunch& launch,
                                             std::string_view task_name);

run::ContainerSpec ReplicaContainer(const plan::ContainerLaunch& launch, std::string_view task_name,
                                    const ContainerContext& context);

}  // namespace trainyard::control
