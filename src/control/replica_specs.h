// A job's replicas as the launcher starts them: from the job, its replica shapes, where each
// replica was placed and the plan context, the cluster plan (plan::BuildClusterPlan) and each
// replica's run::ProcessSpec. The one assembly of the local backend (control/local_backend.h) and
// of the cluster backend's node agent (agent/node_agent.h), so a replica runs with the same argv,
// environment, files and container wherever it runs:
// - argv and environment: the plan's;
// - working directory: the plan's (a job with extras), else its own (JobLayout::working_dir); log
//   and exit files: JobLayout::log_path and JobLayout::exit_path;
// - a container replica: with `context.containers_on_host`, its containerCommand on the host
//   (HostCommand); else the container ReplicaContainer makes (control/replica_container.h), given
//   its placed devices unless they are emulated;
// - `view` set (the local backend): a host process sees only it, and it is a container's mounts;
//   unset (a cluster task): a host process sees what the task sees, and a container mounts the
//   whole bucket store.
// Pure but for the absolute paths of the container's mounts; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "model/job.h"
#include "plan/cluster_plan.h"
#include "plan/replicas.h"
#include "run/file_view.h"
#include "run/launcher.h"

namespace trainyard::control {

// Where the job's files are and what its replicas see; the job and trial ids are the context's
// (PlanContext::job_id, else the job's; PlanContext::trial_id).
struct ReplicaFiles {
  std::string data_dir;  // JobLayout(data_dir, project, job id, trial id) holds the files
  std::string project;   // the job's project (also in container names and labels)
  std::optional<run::FileView> view;
};

// One spec per shape, in the same order: the replica's, or why it alone cannot start (a
// container without a containerCommand on the host: FAILED_PRECONDITION naming it). The plan's
// errors (plan::BuildClusterPlan) are the whole job's.
Result<std::vector<Result<run::ProcessSpec>>> BuildReplicaSpecs(
    const model::Job& job, const std::vector<plan::ReplicaShape>& shapes,
    const std::vector<plan::ReplicaPlacement>& placements, const plan::PlanContext& context,
    const ReplicaFiles& files, const catalog::Catalog& catalog);

}  // namespace trainyard::control
