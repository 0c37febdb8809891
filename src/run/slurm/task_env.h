// Where the tasks of a Slurm job step run, from the environment Slurm gives every task (pure;
// docs/reference/slurm.md §2.2, §10): SLURM_PROCID (this task, counted across components),
// SLURM_HET_SIZE and, per component g, SLURM_JOB_NODELIST_HET_GROUP_<g> and
// SLURM_NTASKS_HET_GROUP_<g>; a job that is not heterogeneous has SLURM_JOB_NODELIST and
// SLURM_NTASKS instead. Task i of a component runs on the i-th node of its node list (one task per
// node, block distribution).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trainyard::run::slurm {

struct TaskLayout {
  int procid = 0;
  // Per component, the node of each of its tasks, in task order.
  std::vector<std::vector<std::string>> component_nodes;
  // The total number of tasks (the sum of the components' sizes).
  int TaskCount() const;
  bool operator==(const TaskLayout&) const = default;
};

using GetEnv = std::function<std::optional<std::string>(std::string_view name)>;

// FAILED_PRECONDITION "not inside a Slurm job step: SLURM_PROCID is not set" when there is no
// SLURM_PROCID; INVALID_ARGUMENT naming the variable when one is missing or malformed, when a
// component has more tasks than nodes, or SLURM_PROCID is not below the task count.
Result<TaskLayout> TaskLayoutFromEnv(const GetEnv& getenv);

// CUDA_VISIBLE_DEVICES as Slurm sets it from the GRES ("0,1"; "" or unset: none).
// INVALID_ARGUMENT when an entry is not a non-negative integer.
Result<std::vector<int>> ParseDeviceList(std::string_view value);

}  // namespace trainyard::run::slurm
