// Place: gang placement of the queue onto what the running allocations leave free.
#include "sched/placement.h"

#include <algorithm>
#include <set>
#include <utility>

namespace trainyard::sched {
namespace {

// What one node has left: the device indices in use and the CPUs/memory held.
struct NodeUse {
  std::set<int> busy_devices;
  int cpus = 0;
  std::int64_t memory_mib = 0;
};

using Usage = std::vector<NodeUse>;  // parallel to Inventory::nodes

Usage UsageOf(const Inventory& inventory, const std::vector<Allocation>& running) {
  Usage usage(inventory.nodes.size());
  for (const Allocation& allocation : running) {
    for (const ReplicaAssignment& replica : allocation.replicas) {
      if (replica.node >= usage.size()) {
        continue;  // the inventory changed under a running job; that node is gone
      }
      NodeUse& use = usage[replica.node];
      use.busy_devices.insert(replica.device_indices.begin(), replica.device_indices.end());
      use.cpus += replica.cpus;
      use.memory_mib += replica.memory_mib;
    }
  }
  return usage;
}

// The lowest free indices of `demand.accelerator` on `node`, or nullopt when the node cannot
// take the replica now.
std::optional<std::vector<int>> FitOnNode(const Node& node, const NodeUse& use,
                                          Accounting accounting, const ReplicaDemand& demand) {
  if (!node.HasLabels(demand.node_selector)) {
    return std::nullopt;
  }
  if (accounting == Accounting::kStrict && (use.cpus + demand.cpus > node.cpus ||
                                            use.memory_mib + demand.memory_mib > node.memory_mib)) {
    return std::nullopt;
  }
  std::vector<int> free;
  if (demand.accelerator_count > 0) {
    for (const Device& device : node.devices) {
      if (device.accelerator == demand.accelerator && !use.busy_devices.contains(device.index)) {
        free.push_back(device.index);
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

// All of `job`'s replicas, first-fit in order, taking from `usage`; nullopt (and `usage`
// untouched) when one does not fit.
std::optional<Allocation> PlaceGang(const Inventory& inventory, Accounting accounting,
                                    const JobDemand& job, Usage& usage) {
  Usage trial = usage;
  Allocation allocation{.key = job.key};
  for (const ReplicaDemand& demand : job.replicas) {
    bool placed = false;
    for (std::size_t n = 0; n < inventory.nodes.size() && !placed; ++n) {
      std::optional<std::vector<int>> devices =
          FitOnNode(inventory.nodes[n], trial[n], accounting, demand);
      if (!devices) {
        continue;
      }
      trial[n].busy_devices.insert(devices->begin(), devices->end());
      trial[n].cpus += demand.cpus;
      trial[n].memory_mib += demand.memory_mib;
      allocation.replicas.push_back(ReplicaAssignment{.task_name = demand.task_name,
                                                      .node = n,
                                                      .device_indices = std::move(*devices),
                                                      .cpus = demand.cpus,
                                                      .memory_mib = demand.memory_mib});
      placed = true;
    }
    if (!placed) {
      return std::nullopt;
    }
  }
  usage = std::move(trial);
  return allocation;
}

}  // namespace

bool StartsBefore(const JobDemand& a, const JobDemand& b) {
  if (a.priority != b.priority) {
    return a.priority > b.priority;
  }
  return a.sequence < b.sequence;
}

std::vector<Allocation> Place(const Inventory& inventory, Accounting accounting,
                              const std::vector<Allocation>& running,
                              const std::vector<JobDemand>& queue) {
  std::vector<const JobDemand*> order;
  order.reserve(queue.size());
  for (const JobDemand& job : queue) {
    order.push_back(&job);
  }
  std::ranges::stable_sort(
      order, [](const JobDemand* a, const JobDemand* b) { return StartsBefore(*a, *b); });

  Usage usage = UsageOf(inventory, running);
  std::vector<Allocation> started;
  for (const JobDemand* job : order) {
    // A job that does not fit now is skipped, so it does not block the jobs behind it.
    if (std::optional<Allocation> allocation = PlaceGang(inventory, accounting, *job, usage)) {
      started.push_back(std::move(*allocation));
    }
  }
  return started;
}

}  // namespace trainyard::sched
