// NeverFits: why a job cannot start even on an empty inventory, worded for `errorMessage`.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sched/placement.h"

namespace trainyard::sched {
namespace {

bool Fits(const Inventory& inventory, Accounting accounting, std::vector<ReplicaDemand> replicas) {
  const JobDemand job{.key = "", .priority = 0, .sequence = 0, .replicas = std::move(replicas)};
  return !Place(inventory, accounting, {}, {job}).empty();
}

// The most, or the sum, of `of(node)` over the nodes.
template <typename F>
auto Largest(const Inventory& inventory, F of) {
  decltype(of(inventory.nodes.front())) largest = 0;
  for (const Node& node : inventory.nodes) {
    largest = std::max(largest, of(node));
  }
  return largest;
}

template <typename F>
auto Total(const Inventory& inventory, F of) {
  decltype(of(inventory.nodes.front())) total = 0;
  for (const Node& node : inventory.nodes) {
    total += of(node);
  }
  return total;
}

std::string Gib(std::int64_t mib) {
  if (mib % 1024 == 0) {
    return fmt::format("{} GiB", mib / 1024);
  }
  return fmt::format("{:.1f} GiB", static_cast<double>(mib) / 1024.0);
}

// "60 GiB" and "31 GiB"; MiB when GiB would round the two to the same text.
std::pair<std::string, std::string> MemoryPair(std::int64_t need, std::int64_t have) {
  if (Gib(need) == Gib(have)) {
    return {fmt::format("{} MiB", need), fmt::format("{} MiB", have)};
  }
  return {Gib(need), Gib(have)};
}

// The replicas of `job` that ask for `accelerator`.
std::vector<const ReplicaDemand*> UsersOf(const JobDemand& job, const std::string& accelerator) {
  std::vector<const ReplicaDemand*> users;
  for (const ReplicaDemand& replica : job.replicas) {
    if (replica.accelerator_count > 0 && replica.accelerator == accelerator) {
      users.push_back(&replica);
    }
  }
  return users;
}

bool SameCount(const std::vector<const ReplicaDemand*>& users) {
  return std::ranges::all_of(users, [&](const ReplicaDemand* r) {
    return r->accelerator_count == users.front()->accelerator_count;
  });
}

int CountSum(const std::vector<const ReplicaDemand*>& users) {
  int total = 0;
  for (const ReplicaDemand* replica : users) {
    total += replica->accelerator_count;
  }
  return total;
}

// `replica` fits no empty node: name the first resource no node has enough of.
std::string ReplicaShortfall(const Inventory& inventory, Accounting accounting,
                             const JobDemand& job, const ReplicaDemand& replica) {
  const bool strict = accounting == Accounting::kStrict;
  std::vector<std::string> needs;
  if (replica.accelerator_count > 0) {
    const int largest =
        Largest(inventory, [&](const Node& node) { return node.CountOf(replica.accelerator); });
    if (replica.accelerator_count > largest) {
      const std::vector<const ReplicaDemand*> users = UsersOf(job, replica.accelerator);
      const std::string each = SameCount(users) ? "per replica" : "for " + replica.task_name;
      return fmt::format("needs {} × {} ({} {}); the largest node has {}.", CountSum(users),
                         replica.accelerator, replica.accelerator_count, each, largest);
    }
    needs.push_back(fmt::format("{} × {}", replica.accelerator_count, replica.accelerator));
  }
  if (strict) {
    const int cpus = Largest(inventory, [](const Node& node) { return node.cpus; });
    if (replica.cpus > cpus) {
      return fmt::format("needs {} vCPUs per replica ({}); the largest node has {}.", replica.cpus,
                         replica.machine_type, cpus);
    }
    const auto memory = Largest(inventory, [](const Node& node) { return node.memory_mib; });
    if (replica.memory_mib > memory) {
      const auto [need, have] = MemoryPair(replica.memory_mib, memory);
      return fmt::format("needs {} of memory per replica; the largest node has {}.", need, have);
    }
    needs.push_back(fmt::format("{} vCPUs", replica.cpus));
    needs.push_back(fmt::format("{} of memory", Gib(replica.memory_mib)));
  }
  return fmt::format("needs {} on one node for {}; no node has all of that.",
                     fmt::join(needs, ", "), replica.task_name);
}

// Every replica fits some empty node, but not all of them at once.
std::string GangShortfall(const Inventory& inventory, Accounting accounting, const JobDemand& job) {
  std::vector<std::string> seen;
  for (const ReplicaDemand& replica : job.replicas) {
    if (replica.accelerator_count == 0 ||
        std::ranges::find(seen, replica.accelerator) != seen.end()) {
      continue;
    }
    seen.push_back(replica.accelerator);
    const std::vector<const ReplicaDemand*> users = UsersOf(job, replica.accelerator);
    const int total = CountSum(users);
    const int have =
        Total(inventory, [&](const Node& node) { return node.CountOf(replica.accelerator); });
    if (total <= have) {
      continue;
    }
    if (SameCount(users)) {
      return fmt::format("needs {} replicas with {} × {} each; the inventory has {} × {} in all.",
                         users.size(), replica.accelerator_count, replica.accelerator, have,
                         replica.accelerator);
    }
    return fmt::format("needs {} × {} for {} replicas; the inventory has {} × {} in all.", total,
                       replica.accelerator, users.size(), have, replica.accelerator);
  }
  if (accounting == Accounting::kStrict) {
    int cpus = 0;
    std::int64_t memory = 0;
    for (const ReplicaDemand& replica : job.replicas) {
      cpus += replica.cpus;
      memory += replica.memory_mib;
    }
    const int have_cpus = Total(inventory, [](const Node& node) { return node.cpus; });
    if (cpus > have_cpus) {
      return fmt::format("needs {} vCPUs for {} replicas; the inventory has {} in all.", cpus,
                         job.replicas.size(), have_cpus);
    }
    const auto have_memory = Total(inventory, [](const Node& node) { return node.memory_mib; });
    if (memory > have_memory) {
      const auto [need, have] = MemoryPair(memory, have_memory);
      return fmt::format("needs {} of memory for {} replicas; the inventory has {} in all.", need,
                         job.replicas.size(), have);
    }
  }
  // Enough in all, but split across nodes so that first-fit cannot place every replica.
  std::vector<ReplicaDemand> prefix;
  for (const ReplicaDemand& replica : job.replicas) {
    prefix.push_back(replica);
    if (!Fits(inventory, accounting, prefix)) {
      break;
    }
  }
  const std::size_t fitting = prefix.size() - 1;
  return fmt::format(
      "needs {} replicas at once; only the first {} fit on the inventory's {} nodes "
      "together.",
      job.replicas.size(), fitting, inventory.nodes.size());
}

}  // namespace

std::optional<std::string> NeverFits(const Inventory& inventory, Accounting accounting,
                                     const JobDemand& job) {
  if (Fits(inventory, accounting, job.replicas)) {
    return std::nullopt;
  }
  if (inventory.nodes.empty()) {
    return fmt::format("needs {} {}; the inventory has no nodes.", job.replicas.size(),
                       job.replicas.size() == 1 ? "replica" : "replicas");
  }
  for (const ReplicaDemand& replica : job.replicas) {
    if (!Fits(inventory, accounting, {replica})) {
      return ReplicaShortfall(inventory, accounting, job, replica);
    }
  }
  return GangShortfall(inventory, accounting, job);
}

}  // namespace trainyard::sched
