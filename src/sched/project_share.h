// A project's standing in the sharing pass (issue #34): what it borrows beyond its quota and its
// dominant share of the inventory, counted as the pass (fair_share.h) counts them. Pure; the pass
// orders projects with it, and the cluster view (api/trainyard/cluster.h) shows it.
//
// - Borrowed: the part of the project's use beyond each limit of its quota, per accelerator type,
//   vCPUs and memory (jobs are a hard limit: never borrowed). A project without a quota has no
//   limits and borrows nothing.
// - Share: its dominant share (DRF), the largest of its use over the inventory's of each
//   accelerator type and, under Accounting::kStrict (where they are exclusive), of vCPUs and
//   memory; 0..1. The pass ranks projects by this over their weight.
#pragma once

#include "sched/amounts.h"
#include "sched/inventory.h"
#include "sched/placement.h"
#include "sched/sharing.h"

namespace trainyard::sched {

struct ProjectShare {
  Amounts borrowed;  // `jobs` is always 0
  double share = 0;  // before the weight
  int weight = 1;    // the quota's (≥ 1); 1 without a quota

  // `amount` (the share, or a share with past usage) over the weight: what the order compares.
  double Weighted(double amount) const { return amount / weight; }
};

// What `inventory` has: devices by accelerator type, vCPUs and memory (`jobs` 0).
Amounts CapacityOf(const Inventory& inventory);

// The standing of a project that holds `use`, with `quota` (null: none) in an inventory of
// `capacity` (CapacityOf).
ProjectShare ShareOfProject(const Amounts& use, const ProjectQuota* quota, const Amounts& capacity,
                            Accounting accounting);

}  // namespace trainyard::sched
