// The node agent (src/agent/: the node side of a cluster backend; it depends on control/ and
// below), `trainyard batch-task --launch FILE`: what every task of a job run by a cluster backend
// runs inside the allocation (the sbatch script's srun step). It
//   1. reads the launch file (agent/batch_launch.h) and works out its replica from the
//      manager's environment (run/slurm/task_env.h): task i of the step is the job's i-th
//      replica (plan::ExpandReplicas order, which is the components' order); every replica's
//      address is its node's (the launch file's node_addresses, else `scontrol show node`'s
//      NodeAddr, else the node name) and its port first_port + i; its devices are the
//      CUDA_VISIBLE_DEVICES Slurm set from the GRES;
//   2. builds its replica's process as the local backend does, with the same assembly
//      (control/replica_specs.h: plan::BuildClusterPlan's argv and environment, so TF_CONFIG,
//      CLUSTER_SPEC and the PyTorch variables are consistent across the tasks, its files, and a
//      container replica's podman container or, with `--containers host`, its host command);
//   3. for a container replica, makes its image available on this node (pulled when missing,
//      with the operator's registry options: the serve flags the executor appends to the task
//      command); a node without podman fails the task saying how to install it;
//   4. writes its started file (JobLayout::started_path) and runs the replica under
//      `trainyard-replica`, so its output becomes records in the job's log file for the task and
//      `stream-logs` works as locally;
//   5. restarts it, as the local executor does (control/reconcile/replica_policy.h), when it is
//      killed by a signal the task was not sent, after the same backoff, writing the same service
//      message;
//   6. once it ends for good, writes the exit file (JobLayout::exit_path) the executor watches,
//      and ends as the replica did.
// A stop signal (SIGTERM/SIGINT/SIGHUP: scancel, the time limit) is passed on to the replica's
// process group and ends the restarts; so does a replica killed by one of those signals (Slurm
// signals every process of the step, and the replica may see it first): inside an allocation
// only other signals (SIGKILL from the OOM killer, SIGSEGV, …) are crashes to restart.
#pragma once

#include <string>

#include "base/clock.h"
#include "catalog/catalog.h"
#include "run/container/podman_runtime.h"
#include "run/slurm/task_env.h"

namespace trainyard::agent {

// Runs the task to its end; returns the process exit status to end with (the replica's code, or
// 128 + signal). A task that cannot start its replica (a bad launch file, an environment that is
// not a Slurm step, a plan error) writes the reason to the job's service log and to this
// process's stderr (the batch step's output), writes an exit file saying it exited 127, and
// returns 127.
// `containers` are the operator's podman options for container replicas; `containers_on_host`:
// they run their containerCommand on the node instead (HostCommand).
int RunBatchTask(const std::string& launch_path, const run::slurm::GetEnv& getenv,
                 const catalog::Catalog& catalog, const Clock& clock,
                 const run::container::PodmanOptions& containers = {},
                 bool containers_on_host = false);

}  // namespace trainyard::agent
