// NeverFits: why a job cannot start even on an empty inventory, worded for `errorMessage`.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sched/never_fits_labels.h"
#include "sched/placement.h"

namespace trainyard::sched {
namespace {

using Labels = std::map<std::string, std::string>;

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

// The replicas of `job` that ask for `like`'s accelerator with its node selector.
std::vector<const ReplicaDemand*> UsersOf(const JobDemand& job, const ReplicaDemand& like) {
  std::vector<const ReplicaDemand*> users;
  for (const ReplicaDemand& replica : job.replicas) {
    if (replica.accelerator_count > 0 && replica.accelerator == like.accelerator &&
        replica.node_selector == like.node_selector) {
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

// `replica` fits no empty node its selector allows: name the first resource no such node has
// enough of.
std::string ReplicaShortfall(const Inventory& whole, Accounting accounting, const JobDemand& job,
                             const ReplicaDemand& replica) {
  const Scope scope = ScopeOf(whole, replica.node_selector);
  const Inventory& inventory = scope.inventory;
  if (inventory.nodes.empty()) {
    return NoNodeHasTheLabels(whole, replica);
  }
  const bool strict = accounting == Accounting::kStrict;
  std::vector<std::string> needs;
  if (replica.accelerator_count > 0) {
    const int largest =
        Largest(inventory, [&](const Node& node) { return node.CountOf(replica.accelerator); });
    if (replica.accelerator_count > largest) {
      const std::vector<const ReplicaDemand*> users = UsersOf(job, replica);
      const std::string each = SameCount(users) ? "per replica" : "for " + replica.task_name;
      return fmt::format("needs {} × {} ({} {}); {} has {}.", CountSum(users), replica.accelerator,
                         replica.accelerator_count, each, scope.largest, largest);
    }
    needs.push_back(fmt::format("{} × {}", replica.accelerator_count, replica.accelerator));
  }
  if (strict) {
    const int cpus = Largest(inventory, [](const Node& node) { return node.cpus; });
    if (replica.cpus > cpus) {
      return fmt::format("needs {} vCPUs per replica ({}); {} has {}.", replica.cpus,
                         replica.machine_type, scope.largest, cpus);
    }
    const auto memory = Largest(inventory, [](const Node& node) { return node.memory_mib; });
    if (replica.memory_mib > memory) {
      const auto [need, have] = MemoryPair(replica.memory_mib, memory);
      return fmt::format("needs {} of memory per replica; {} has {}.", need, scope.largest, have);
    }
    needs.push_back(fmt::format("{} vCPUs", replica.cpus));
    needs.push_back(fmt::format("{} of memory", Gib(replica.memory_mib)));
  }
  return fmt::format("needs {} on one node for {}; {} has all of that.", fmt::join(needs, ", "),
                     replica.task_name, scope.none);
}

// The replicas with `selector` need at most what the nodes it allows have in all.
std::optional<std::string> SelectorGroupShortfall(const Inventory& whole, Accounting accounting,
                                                  const JobDemand& job, const Labels& selector) {
  const Scope scope = ScopeOf(whole, selector);
  std::vector<std::string> seen;
  for (const ReplicaDemand& replica : job.replicas) {
    if (replica.node_selector != selector || replica.accelerator_count == 0 ||
        std::ranges::find(seen, replica.accelerator) != seen.end()) {
      continue;
    }
    seen.push_back(replica.accelerator);
    const std::vector<const ReplicaDemand*> users = UsersOf(job, replica);
    const int total = CountSum(users);
    const int have =
        Total(scope.inventory, [&](const Node& node) { return node.CountOf(replica.accelerator); });
    if (total <= have) {
      continue;
    }
    if (SameCount(users)) {
      return fmt::format("needs {} replicas with {} × {} each; {} {} × {} in all.", users.size(),
                         replica.accelerator_count, replica.accelerator, scope.all, have,
                         replica.accelerator);
    }
    return fmt::format("needs {} × {} for {} replicas; {} {} × {} in all.", total,
                       replica.accelerator, users.size(), scope.all, have, replica.accelerator);
  }
  if (accounting != Accounting::kStrict) {
    return std::nullopt;
  }
  std::size_t replicas = 0;
  int cpus = 0;
  std::int64_t memory = 0;
  for (const ReplicaDemand& replica : job.replicas) {
    if (replica.node_selector == selector) {
      ++replicas;
      cpus += replica.cpus;
      memory += replica.memory_mib;
    }
  }
  const int have_cpus = Total(scope.inventory, [](const Node& node) { return node.cpus; });
  if (cpus > have_cpus) {
    return fmt::format("needs {} vCPUs for {} replicas; {} {} in all.", cpus, replicas, scope.all,
                       have_cpus);
  }
  const auto have_memory = Total(scope.inventory, [](const Node& node) { return node.memory_mib; });
  if (memory > have_memory) {
    const auto [need, have] = MemoryPair(memory, have_memory);
    return fmt::format("needs {} of memory for {} replicas; {} {} in all.", need, replicas,
                       scope.all, have);
  }
  return std::nullopt;
}

// Every replica fits some empty node, but not all of them at once.
std::string GangShortfall(const Inventory& inventory, Accounting accounting, const JobDemand& job) {
  // Replicas with different selectors may share nodes, so each group's own total is checked.
  std::vector<const Labels*> selectors;
  for (const ReplicaDemand& replica : job.replicas) {
    if (std::ranges::none_of(selectors,
                             [&](const Labels* s) { return *s == replica.node_selector; })) {
      selectors.push_back(&replica.node_selector);
    }
  }
  for (const Labels* selector : selectors) {
    if (std::optional<std::string> shortfall =
            SelectorGroupShortfall(inventory, accounting, job, *selector)) {
      return *shortfall;
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
