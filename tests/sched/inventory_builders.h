// Small builders and renderers for the sched tests: nodes, demands and allocations as text.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sched/inventory.h"
#include "sched/placement.h"

namespace trainyard::sched::builders {

constexpr std::int64_t kGib = 1024;  // MiB

// A node whose devices are `accelerators` in order, indexed 0, 1, …
inline Node MakeNode(std::string name, int cpus, std::int64_t memory_mib,
                     const std::vector<std::pair<std::string, int>>& accelerators = {}) {
  Node node{.name = std::move(name), .cpus = cpus, .memory_mib = memory_mib, .devices = {}};
  for (const auto& [type, count] : accelerators) {
    for (int i = 0; i < count; ++i) {
      node.devices.push_back(Device{.index = static_cast<int>(node.devices.size()),
                                    .accelerator = type,
                                    .model = type,
                                    .emulated = false});
    }
  }
  return node;
}

using Labels = std::map<std::string, std::string>;

// `node` with `labels` (and no others: placement tests spell out every label they rely on).
inline Node Labelled(Node node, Labels labels) {
  node.labels = std::move(labels);
  return node;
}

inline ReplicaDemand Replica(std::string task, int cpus, std::int64_t memory_mib,
                             std::string accelerator = "", int count = 0) {
  return ReplicaDemand{.task_name = std::move(task),
                       .machine_type = "test-machine",
                       .cpus = cpus,
                       .memory_mib = memory_mib,
                       .accelerator = std::move(accelerator),
                       .accelerator_count = count};
}

// `count` replicas "<prefix>-0" … alike.
inline std::vector<ReplicaDemand> Replicas(const std::string& prefix, int count, int cpus,
                                           std::int64_t memory_mib,
                                           const std::string& accelerator = "",
                                           int accelerators = 0) {
  std::vector<ReplicaDemand> replicas;
  replicas.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    replicas.push_back(
        Replica(fmt::format("{}-{}", prefix, i), cpus, memory_mib, accelerator, accelerators));
  }
  return replicas;
}

// `replicas`, each with `node_selector`.
inline std::vector<ReplicaDemand> Selecting(std::vector<ReplicaDemand> replicas,
                                            const Labels& node_selector) {
  for (ReplicaDemand& replica : replicas) {
    replica.node_selector = node_selector;
  }
  return replicas;
}

inline JobDemand Job(std::string key, int priority, std::int64_t sequence,
                     std::vector<ReplicaDemand> replicas) {
  return JobDemand{.key = std::move(key),
                   .priority = priority,
                   .sequence = sequence,
                   .replicas = std::move(replicas)};
}

// "a{m@0[0,1] w@1[]} b{…}": each allocation's replicas as task@node[device indices].
inline std::string Render(const std::vector<Allocation>& allocations) {
  std::vector<std::string> jobs;
  for (const Allocation& allocation : allocations) {
    std::vector<std::string> replicas;
    for (const ReplicaAssignment& replica : allocation.replicas) {
      replicas.push_back(fmt::format("{}@{}[{}]", replica.task_name, replica.node,
                                     fmt::join(replica.device_indices, ",")));
    }
    jobs.push_back(fmt::format("{}{{{}}}", allocation.key, fmt::join(replicas, " ")));
  }
  return fmt::format("{}", fmt::join(jobs, " "));
}

}  // namespace trainyard::sched::builders
