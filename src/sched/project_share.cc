#include "sched/project_share.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace trainyard::sched {
namespace {

// The part of `used` beyond `limit` (none without a limit).
std::int64_t Beyond(std::int64_t used, std::optional<std::int64_t> limit) {
  return limit ? std::max<std::int64_t>(0, used - *limit) : 0;
}

// `used` over `total`, or 0 when the inventory has none.
double Fraction(std::int64_t used, std::int64_t total) {
  return total > 0 ? static_cast<double>(used) / static_cast<double>(total) : 0;
}

}  // namespace

Amounts CapacityOf(const Inventory& inventory) {
  Amounts capacity;
  for (const Node& node : inventory.nodes) {
    for (const Device& device : node.devices) {
      ++capacity.devices[device.accelerator];
    }
    capacity.cpus += node.cpus;
    capacity.memory_mib += node.memory_mib;
  }
  return capacity;
}

ProjectShare ShareOfProject(const Amounts& use, const ProjectQuota* quota, const Amounts& capacity,
                            Accounting accounting) {
  ProjectShare out;
  if (quota != nullptr) {
    out.weight = std::max(1, quota->weight);
    for (const auto& [type, limit] : quota->accelerators) {
      if (const std::int64_t beyond = Beyond(use.DevicesOf(type), limit); beyond > 0) {
        out.borrowed.devices[type] = beyond;
      }
    }
    out.borrowed.cpus = Beyond(use.cpus, quota->cpus);
    out.borrowed.memory_mib = Beyond(use.memory_mib, quota->memory_mib);
  }
  for (const auto& [type, count] : use.devices) {
    out.share = std::max(out.share, Fraction(count, capacity.DevicesOf(type)));
  }
  if (accounting == Accounting::kStrict) {
    out.share = std::max(out.share, Fraction(use.cpus, capacity.cpus));
    out.share = std::max(out.share, Fraction(use.memory_mib, capacity.memory_mib));
  }
  return out;
}

}  // namespace trainyard::sched
