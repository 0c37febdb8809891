// Room: what an inventory has free, given what holds resources — the fitting primitive that Place
// and sharing (sched/fair_share.h) both use. Value type; pure.
//
// A job fits as Place's policy says (sched/placement.h): gang, each replica in order to the first
// node (inventory order) that has its node selector's labels and room for it, lowest free device
// indices first, CPUs and memory counted under kStrict only. A device is busy while any
// allocation holds it (held twice, it stays busy until both are given back).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sched/inventory.h"
#include "sched/placement.h"

namespace trainyard::sched {

class Room {
 public:
  // The room `inventory` has left once `holding` is taken. An assignment naming a node the
  // inventory lacks holds nothing.
  Room(const Inventory& inventory, Accounting accounting,
       const std::vector<Allocation>& holding = {});

  // Where `job` goes now, taking it; nullopt (and nothing taken) when a replica does not fit.
  std::optional<Allocation> TryTake(const JobDemand& job);
  // Whether `job` would fit now (it is taken and given back).
  bool Fits(const JobDemand& job);
  void Take(const Allocation& allocation);
  void Give(const Allocation& allocation);

  // Free devices per accelerator type now, and in all.
  int FreeOf(const std::string& accelerator) const;
  int TotalOf(const std::string& accelerator) const;

 private:
  void Change(const Allocation& allocation, int by);
  std::optional<std::vector<int>> FitOnNode(std::size_t node, const ReplicaDemand& demand) const;

  struct NodeUse {
    std::vector<int> holders;  // per Node::devices position: how many allocations hold it
    int cpus = 0;
    std::int64_t memory_mib = 0;
  };
  const Inventory* inventory_;
  Accounting accounting_;
  std::vector<NodeUse> use_;  // parallel to Inventory::nodes
  std::map<std::string, int, std::less<>> free_;
  std::map<std::string, int, std::less<>> total_;
};

}  // namespace trainyard::sched
