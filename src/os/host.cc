#include "os/host.h"

#include <algorithm>

#include <sched.h>
#include <unistd.h>

namespace trainyard::os {

int UsableCpuCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
    return CPU_COUNT(&set);
  }
  return static_cast<int>(std::max(sysconf(_SC_NPROCESSORS_ONLN), 1L));
}

Result<std::int64_t> PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) {
    return Status::Unavailable("the system does not say how much memory it has (sysconf)");
  }
  return static_cast<std::int64_t>(pages) * page_size;
}

}  // namespace trainyard::os
