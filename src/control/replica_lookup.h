// Which replicas trainyard v1 shows for a job (`GET …/jobs/{jobId}/replicas`, the console's job
// page): those the executor runs, and, only when asked (`includeEnded=true`) and only when it runs
// nothing for the job, those the job's last run left (control/replica_history.h), so an ended
// job's replicas show how they ended without ever mixing two runs.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "control/executor.h"

namespace trainyard::control {

// A job's replicas from one source; nullopt: that source has none for the job.
using ReplicaSource = std::function<std::optional<std::vector<ReplicaInfo>>(
    std::string_view project, std::string_view job_id)>;

// The replicas to show for a job: `running`'s (the executor's, Executor::Replicas) when it has
// the job, an empty list included; otherwise, with `include_ended`, `recorded`'s (what its last
// run left, RecordedReplicas), which is read only then; otherwise none. An unset source has none.
std::vector<ReplicaInfo> ShownReplicas(const ReplicaSource& running, const ReplicaSource& recorded,
                                       std::string_view project, std::string_view job_id,
                                       bool include_ended);

}  // namespace trainyard::control
