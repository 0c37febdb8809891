#include "sched/wait_reason.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace trainyard::sched {

std::string WaitReason(const Inventory& inventory, const std::vector<Allocation>& running,
                       const JobDemand& job) {
  std::map<std::string, int> total;
  std::map<std::string, int> free;
  for (const Node& node : inventory.nodes) {
    for (const Device& device : node.devices) {
      ++total[device.accelerator];
      ++free[device.accelerator];
    }
  }
  for (const Allocation& allocation : running) {
    for (const ReplicaAssignment& replica : allocation.replicas) {
      if (replica.node >= inventory.nodes.size()) {
        continue;
      }
      for (const Device& device : inventory.nodes[replica.node].devices) {
        if (std::ranges::find(replica.device_indices, device.index) !=
            replica.device_indices.end()) {
          --free[device.accelerator];
        }
      }
    }
  }

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
    if (const auto all = total.find(accelerator); all != total.end()) {
      needs += fmt::format(" ({} of {} free)", free[accelerator], all->second);
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
