#include "control/replica_history.h"

#include "control/run_record.h"
#include "run/launcher.h"

namespace trainyard::control {

std::optional<std::vector<ReplicaInfo>> RecordedReplicas(const JobLayout& layout,
                                                         const sched::Inventory& inventory) {
  Result<RunRecord> record = ReadRunRecord(layout.run_record());
  if (!record.ok()) {
    return std::nullopt;
  }
  std::vector<ReplicaInfo> replicas;
  for (const RunRecord::Replica& replica : record->replicas) {
    ReplicaInfo info{.task_name = replica.task_name,
                     .state = "UNKNOWN",
                     .restarts = replica.restarts,
                     .device_indices = replica.device_indices};
    if (const std::optional<ExitStatus> exit = run::ReadExitStatus(replica.spec.exit_path)) {
      info.state = "EXITED";
      info.exit_status = exit->Describe();
    }
    if (record->batch_id.empty() && replica.node < inventory.nodes.size()) {
      info.node = inventory.nodes[replica.node].name;
    }
    replicas.push_back(std::move(info));
  }
  return replicas;
}

std::optional<int> RecordedExitCode(const JobLayout& layout, std::string_view task) {
  const std::optional<ExitStatus> status = run::ReadExitStatus(layout.exit_path(task));
  if (!status.has_value()) {
    return std::nullopt;
  }
  return status->signaled ? 128 + status->signal : status->code;
}

}  // namespace trainyard::control
