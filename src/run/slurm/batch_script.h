// The sbatch script for a job (pure): one heterogeneous component per role, then one srun step
// over every component that runs the task command once per task (docs/reference/slurm.md §2):
//
//   #!/bin/bash
//   #SBATCH --job-name=ty-p-job --output=<output_path> --open-mode=append --chdir=<working_dir>
//   #SBATCH --requeue --time=<minutes, rounded up>
//   #SBATCH <sbatch_options…>
//   #SBATCH --partition=<PartitionFor(priority)>
//   #SBATCH --nodes=1 --ntasks=1 --ntasks-per-node=1 --cpus-per-task=4 --mem=15360M --gres=gpu:t4:1
//   #SBATCH hetjob
//   #SBATCH --partition=<PartitionFor(priority)>
//   #SBATCH --nodes=2 --ntasks=2 --ntasks-per-node=1 --cpus-per-task=8 --mem=30720M
//   exec srun --het-group=0,1 --kill-on-bad-exit=0 '<task_command…>'
//
// (each option on its own #SBATCH line). The options before the first component carry over to
// every component; --partition does not (Slurm 22.05 put a het job's component 1 in the default
// partition), so each component names it. A one-component job has no `hetjob` line and no
// --het-group. --mem is left out when memory_mib is 0, --gres when accelerator_count is 0, --time
// when there is no limit, --partition when PartitionFor gives "", and --requeue is --no-requeue
// when the configuration says so. The task command is quoted for the shell ('…', with ' as '\'').
#pragma once

#include <string>

#include "base/status.h"
#include "run/cluster_backend.h"
#include "run/slurm/slurm_config.h"

namespace trainyard::run::slurm {

// INVALID_ARGUMENT with a violation per problem, naming the field ("components[1].tasks",
// "working_dir", "sbatch_options[0]"): no components, a component with tasks < 1,
// cpus_per_task < 1, or a negative memory_mib or accelerator_count, an empty task command (or a
// word of it holding a NUL), working_dir/output_path not absolute or holding whitespace (sbatch
// reads #SBATCH lines word by word), a sbatch option holding whitespace, a name or partition
// outside [A-Za-z0-9_.-]+, a time_limit under 1 s.
Result<std::string> RenderBatchScript(const ClusterJobRequest& request, const SlurmConfig& config);

// The GRES request for `accelerator_count` devices of `accelerator`: "gpu:<type>:<n>" with the
// configured type, "gpu:<n>" when the accelerator has none configured.
std::string GresFor(std::string_view accelerator, int accelerator_count, const SlurmConfig& config);

}  // namespace trainyard::run::slurm
