// Internal to sched/never_fits.cc: the node-selector parts of its sentences.
#pragma once

#include <map>
#include <string>

#include "sched/inventory.h"
#include "sched/placement.h"

namespace trainyard::sched {

// "a=1, b=2", in key order.
std::string LabelsText(const std::map<std::string, std::string>& labels);

// The nodes a node selector allows, and how the sentences name them: with an empty selector, the
// whole inventory in the words the sentences had before selectors existed.
struct Scope {
  Inventory inventory;
  std::string largest;  // "the largest node", "the largest node labelled nvidia=t4"
  std::string all;      // "the inventory has", "the nodes labelled nvidia=t4 have"
  std::string none;     // "no node", "no node labelled nvidia=t4"
};
Scope ScopeOf(const Inventory& inventory, const std::map<std::string, std::string>& selector);

// No node of `inventory` has all of `replica.node_selector`'s labels: the sentence says what the
// nodes have of those keys, nodes alike grouped and a few of each, so that a large cluster still
// gives a short one. "needs a node labelled nvidia=t4 for worker-replica-0 (its nodeSelector),
// and no node is: n1 has nvidia=v100; n2, n3 have no nvidia label."
std::string NoNodeHasTheLabels(const Inventory& inventory, const ReplicaDemand& replica);

}  // namespace trainyard::sched
