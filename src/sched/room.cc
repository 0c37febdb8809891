#include "sched/room.h"

#include <algorithm>
#include <utility>

namespace trainyard::sched {

Room::Room(const Inventory& inventory, Accounting accounting,
           const std::vector<Allocation>& holding)
    : inventory_(&inventory), accounting_(accounting), use_(inventory.nodes.size()) {
  for (std::size_t n = 0; n < inventory.nodes.size(); ++n) {
    use_[n].holders.assign(inventory.nodes[n].devices.size(), 0);
    for (const Device& device : inventory.nodes[n].devices) {
      ++total_[device.accelerator];
      ++free_[device.accelerator];
    }
  }
  for (const Allocation& allocation : holding) {
    Take(allocation);
  }
}

void Room::Change(const Allocation& allocation, int by) {
  for (const ReplicaAssignment& replica : allocation.replicas) {
    if (replica.node >= use_.size()) {
      continue;  // the inventory changed under a running job; that node is gone
    }
    const Node& node = inventory_->nodes[replica.node];
    NodeUse& use = use_[replica.node];
    for (std::size_t d = 0; d < node.devices.size(); ++d) {
      if (std::ranges::find(replica.device_indices, node.devices[d].index) ==
          replica.device_indices.end()) {
        continue;
      }
      const bool was_free = use.holders[d] == 0;
      use.holders[d] = std::max(0, use.holders[d] + by);
      if (was_free != (use.holders[d] == 0)) {
        free_[node.devices[d].accelerator] += was_free ? -1 : 1;
      }
    }
    use.cpus += by * replica.cpus;
    use.memory_mib += by * replica.memory_mib;
  }
}

void Room::Take(const Allocation& allocation) {
  Change(allocation, 1);
}
void Room::Give(const Allocation& allocation) {
  Change(allocation, -1);
}

int Room::FreeOf(const std::string& accelerator) const {
  const auto found = free_.find(accelerator);
  return found == free_.end() ? 0 : found->second;
}

int Room::TotalOf(const std::string& accelerator) const {
  const auto found = total_.find(accelerator);
  return found == total_.end() ? 0 : found->second;
}

std::optional<std::vector<int>> Room::FitOnNode(std::size_t n, const ReplicaDemand& demand) const {
  const Node& node = inventory_->nodes[n];
  const NodeUse& use = use_[n];
  if (!node.HasLabels(demand.node_selector)) {
    return std::nullopt;
  }
  if (accounting_ == Accounting::kStrict &&
      (use.cpus + demand.cpus > node.cpus ||
       use.memory_mib + demand.memory_mib > node.memory_mib)) {
    return std::nullopt;
  }
  std::vector<int> free;
  if (demand.accelerator_count > 0) {
    for (std::size_t d = 0; d < node.devices.size(); ++d) {
      if (node.devices[d].accelerator == demand.accelerator && use.holders[d] == 0) {
        free.push_back(node.devices[d].index);
      }
    }
  }
  const auto wanted = static_cast<std::size_t>(std::max(demand.accelerator_count, 0));
  if (free.size() < wanted) {
    return std::nullopt;
  }
  std::ranges::sort(free);
  free.resize(wanted);
  return free;
}

std::optional<Allocation> Room::TryTake(const JobDemand& job) {
  // Not enough free devices of a type in all: no node walk.
  std::map<std::string, int, std::less<>> wanted;
  for (const ReplicaDemand& demand : job.replicas) {
    if (demand.accelerator_count > 0) {
      wanted[demand.accelerator] += demand.accelerator_count;
    }
  }
  for (const auto& [accelerator, count] : wanted) {
    if (FreeOf(accelerator) < count) {
      return std::nullopt;
    }
  }
  Allocation allocation{.key = job.key};
  for (const ReplicaDemand& demand : job.replicas) {
    std::optional<ReplicaAssignment> placed;
    for (std::size_t n = 0; n < use_.size() && !placed; ++n) {
      if (std::optional<std::vector<int>> devices = FitOnNode(n, demand)) {
        placed = ReplicaAssignment{.task_name = demand.task_name,
                                   .node = n,
                                   .device_indices = std::move(*devices),
                                   .cpus = demand.cpus,
                                   .memory_mib = demand.memory_mib};
      }
    }
    if (!placed) {
      Give(allocation);  // what the earlier replicas took
      return std::nullopt;
    }
    allocation.replicas.push_back(std::move(*placed));
    Take(Allocation{.key = job.key, .replicas = {allocation.replicas.back()}});
  }
  return allocation;
}

bool Room::Fits(const JobDemand& job) {
  std::optional<Allocation> allocation = TryTake(job);
  if (allocation) {
    Give(*allocation);
  }
  return allocation.has_value();
}

}  // namespace trainyard::sched
