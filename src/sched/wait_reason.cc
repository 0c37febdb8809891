#include "sched/wait_reason.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace trainyard::sched {

std::string WaitReason(const Inventory& inventory, const std::vector<Allocation>& running,
                       const JobDemand& job) {
  return WaitReason(Room(inventory, Accounting::kShared, running), job);
}

std::string WaitReason(const Room& room, const JobDemand& job) {
  std::map<std::string, int> wanted;
  int cpus = 0;
  for (const ReplicaDemand& replica : job.replicas) {
    cpus += replica.cpus;
    if (replica.accelerator_count > 0) {
      wanted[replica.accelerator] += replica.accelerator_count;
    }
  }
  std::string needs;
  for (const auto& [accelerator, count] : wanted) {
    needs += fmt::format("{}{} × {}", needs.empty() ? "" : ", ", count, accelerator);
    if (const int all = room.TotalOf(accelerator); all > 0) {
      needs += fmt::format(" ({} of {} free)", room.FreeOf(accelerator), all);
    }
  }
  if (needs.empty()) {
    needs = fmt::format("{} vCPUs", cpus);
  }
  return job.replicas.size() == 1
             ? fmt::format("Waiting for room: its replica needs {}.", needs)
             : fmt::format("Waiting for room: its {} replicas need {} at once.",
                           job.replicas.size(), needs);
}

}  // namespace trainyard::sched
