#include "sched/amounts.h"

#include <algorithm>

namespace trainyard::sched {

void Amounts::Add(const Amounts& other) {
  for (const auto& [type, count] : other.devices) {
    devices[type] += count;
  }
  cpus += other.cpus;
  memory_mib += other.memory_mib;
  jobs += other.jobs;
}

std::int64_t Amounts::DevicesOf(std::string_view type) const {
  const auto found = devices.find(type);
  return found == devices.end() ? 0 : found->second;
}

Amounts AmountsOf(const JobDemand& job) {
  Amounts amounts{.jobs = 1};
  for (const ReplicaDemand& replica : job.replicas) {
    if (replica.accelerator_count > 0) {
      amounts.devices[replica.accelerator] += replica.accelerator_count;
    }
    amounts.cpus += replica.cpus;
    amounts.memory_mib += replica.memory_mib;
  }
  return amounts;
}

Amounts AmountsOf(const Allocation& allocation, const Inventory& inventory) {
  Amounts amounts{.jobs = 1};
  for (const ReplicaAssignment& replica : allocation.replicas) {
    amounts.cpus += replica.cpus;
    amounts.memory_mib += replica.memory_mib;
    if (replica.node >= inventory.nodes.size()) {
      continue;
    }
    for (const Device& device : inventory.nodes[replica.node].devices) {
      if (std::ranges::find(replica.device_indices, device.index) != replica.device_indices.end()) {
        ++amounts.devices[device.accelerator];
      }
    }
  }
  return amounts;
}

}  // namespace trainyard::sched
