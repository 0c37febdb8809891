// What a job asks for, or an allocation holds, counted as quotas and shares count it (issue #34):
// devices per accelerator type, the replicas' vCPUs and memory, one job. Pure; the sharing pass
// (fair_share.h), the quota rules (quota_check.h) and what a project holds (UseByProject) count
// with these.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "sched/inventory.h"
#include "sched/placement.h"

namespace trainyard::sched {

struct Amounts {
  std::map<std::string, std::int64_t, std::less<>> devices;  // by accelerator type
  std::int64_t cpus = 0;
  std::int64_t memory_mib = 0;
  int jobs = 0;

  void Add(const Amounts& other);
  std::int64_t DevicesOf(std::string_view type) const;

  friend bool operator==(const Amounts&, const Amounts&) = default;
};

// What `job` asks for: its replicas' accelerators, vCPUs and memory; one job.
Amounts AmountsOf(const JobDemand& job);
// What `allocation` holds: its replicas' vCPUs and memory, and its devices by the inventory's
// types (a node the inventory lacks holds none); one job.
Amounts AmountsOf(const Allocation& allocation, const Inventory& inventory);

}  // namespace trainyard::sched
