// What a container replica is started as (run::ContainerSpec), from its plan
// (plan::ContainerLaunch): shared by the executor and `trainyard batch-task` so a container runs
// the same locally and in a Slurm task.
//
// - Named `trainyard-<project>-<job>[-trial-<n>]-<task>` (unique among live replicas, so a
//   restarted server finds it, and `--replace` clears a leftover), labelled trainyard.project,
//   trainyard.job, trainyard.trial (trials) and trainyard.task.
// - Mounts: the bucket store at its own path (the `--job-dir` trainyard passes is a path under
//   it) and at /gcs (Vertex AI's convention: /gcs/<bucket>/<object>), read-write; a trial's
//   hypertune directory at its own path (CLOUD_ML_HP_METRIC_FILE), read-write; each directory of
//   the replica's PYTHONPATH (trainyard's own Python modules: `hypertune`) at its path, read-only.
// - Devices: the placed GPUs, none when they are emulated.
#pragma once

#include <string>
#include <vector>

#include "plan/cluster_plan.h"
#include "run/launcher.h"

namespace trainyard::control {

// Vertex AI's mount point for Cloud Storage inside a container.
inline constexpr std::string_view kGcsMountInContainer = "/gcs";

struct ContainerContext {
  std::string project;
  std::string job_id;
  std::string trial_id;             // "" unless a tuning trial
  std::string gcs_mount;            // the bucket store's root ("" for none)
  std::string hp_metric_dir;        // a trial's hypertune directory ("" for none)
  std::string runtime_modules;      // trainyard's Python modules directory ("" for none)
  std::vector<int> device_indices;  // the replica's GPUs on its node (real ones only)
};

// The container name for a replica of the job (see above).
std::string ContainerName(const ContainerContext& context, std::string_view task_name);

run::ContainerSpec ReplicaContainer(const plan::ContainerLaunch& launch, std::string_view task_name,
                                    const ContainerContext& context);

}  // namespace trainyard::control
