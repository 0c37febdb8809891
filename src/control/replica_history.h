// The replicas of a job the executor no longer runs, as its last run left them: the run record
// (control/run_record.h: each replica's last start, restarts, node and devices) and each
// supervisor's exit file. What the console shows of a job that has ended (trainyard v1 replicas
// with `includeEnded`); the executor itself reports only what it runs (Executor::Replicas).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "control/executor.h"
#include "control/job_layout.h"
#include "sched/inventory.h"

namespace trainyard::control {

// Every replica of the record at `layout` with state "EXITED" (or "UNKNOWN" when its exit file
// is missing: the server died while it ran, or a cluster manager ran it), its restarts, node
// (named from `inventory`) and devices; nullopt when there is no readable record.
std::optional<std::vector<ReplicaInfo>> RecordedReplicas(const JobLayout& layout,
                                                         const sched::Inventory& inventory);

// How the replica `task` of the job at `layout` ended, as its exit file says (which outlives the
// executor's memory): its exit code, or 128 + N for signal N, as a shell and Kubernetes show it;
// nullopt when the file is missing or unreadable.
std::optional<int> RecordedExitCode(const JobLayout& layout, std::string_view task);

}  // namespace trainyard::control
