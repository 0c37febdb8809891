// The node-selector parts of NeverFits's sentences.
#include "sched/never_fits_labels.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace trainyard::sched {
namespace {

// What `node` has of the selector's keys: "nvidia=v100", "no nvidia label",
// "zone=a and no gpu, rack labels".
std::string SelectedLabelsOf(const Node& node, const std::map<std::string, std::string>& selector) {
  std::vector<std::string> present;
  std::vector<std::string> missing;
  for (const auto& [key, value] : selector) {
    const auto label = node.labels.find(key);
    if (label == node.labels.end()) {
      missing.push_back(key);
    } else {
      present.push_back(fmt::format("{}={}", key, label->second));
    }
  }
  if (!missing.empty()) {
    present.push_back(fmt::format("no {} {}", fmt::join(missing, ", "),
                                  missing.size() == 1 ? "label" : "labels"));
  }
  return fmt::format("{}", fmt::join(present, " and "));
}

}  // namespace

std::string LabelsText(const std::map<std::string, std::string>& labels) {
  std::vector<std::string> pairs;
  pairs.reserve(labels.size());
  for (const auto& [key, value] : labels) {
    pairs.push_back(fmt::format("{}={}", key, value));
  }
  return fmt::format("{}", fmt::join(pairs, ", "));
}

Scope ScopeOf(const Inventory& inventory, const std::map<std::string, std::string>& selector) {
  if (selector.empty()) {
    return Scope{inventory, "the largest node", "the inventory has", "no node"};
  }
  Scope scope{{}, "", "", ""};
  for (const Node& node : inventory.nodes) {
    if (node.HasLabels(selector)) {
      scope.inventory.nodes.push_back(node);
    }
  }
  const std::string labelled = "labelled " + LabelsText(selector);
  scope.largest = "the largest node " + labelled;
  scope.all = "the nodes " + labelled + " have";
  scope.none = "no node " + labelled;
  return scope;
}

std::string NoNodeHasTheLabels(const Inventory& inventory, const ReplicaDemand& replica) {
  constexpr std::size_t kMaxGroups = 3;
  constexpr std::size_t kMaxNamesPerGroup = 3;
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // what, which nodes
  for (const Node& node : inventory.nodes) {
    std::string what = SelectedLabelsOf(node, replica.node_selector);
    auto group = std::ranges::find(groups, what, &decltype(groups)::value_type::first);
    if (group == groups.end()) {
      groups.emplace_back(std::move(what), std::vector<std::string>{});
      group = std::prev(groups.end());
    }
    group->second.push_back(node.name);
  }
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < groups.size() && i < kMaxGroups; ++i) {
    const auto& [what, names] = groups[i];
    const std::size_t shown = std::min(names.size(), kMaxNamesPerGroup);
    std::string who = fmt::format(
        "{}", fmt::join(std::vector<std::string>(
                            names.begin(), names.begin() + static_cast<std::ptrdiff_t>(shown)),
                        ", "));
    if (shown < names.size()) {
      who += fmt::format(" and {} more", names.size() - shown);
    }
    parts.push_back(fmt::format("{} {} {}", who, names.size() == 1 ? "has" : "have", what));
  }
  if (groups.size() > kMaxGroups) {
    std::size_t others = 0;
    for (std::size_t i = kMaxGroups; i < groups.size(); ++i) {
      others += groups[i].second.size();
    }
    parts.push_back(
        fmt::format("{} more {} other values", others, others == 1 ? "node has" : "nodes have"));
  }
  return fmt::format("needs a node labelled {} for {} (its nodeSelector), and no node is: {}.",
                     LabelsText(replica.node_selector), replica.task_name, fmt::join(parts, "; "));
}

}  // namespace trainyard::sched
