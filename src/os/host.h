// The machine this process runs on: how many CPUs it may use and how much memory there is
// (sched/host_inventory.h's local node). Thread-safe.
#pragma once

#include <cstdint>

#include "base/status.h"

namespace trainyard::os {

// The CPUs this process may run on (its affinity mask, which a container or `taskset` narrows),
// else the online ones; at least 1.
int UsableCpuCount();

// The machine's physical memory in bytes, as sysconf counts its pages. UNAVAILABLE when the
// system does not say.
Result<std::int64_t> PhysicalMemoryBytes();

}  // namespace trainyard::os
