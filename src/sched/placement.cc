// Place: gang placement of the queue onto what the running allocations leave free (sched/room.h
// fits each job).
#include "sched/placement.h"

#include <algorithm>
#include <utility>

#include "sched/room.h"

namespace trainyard::sched {

bool StartsBefore(const JobDemand& a, const JobDemand& b) {
  if (a.priority != b.priority) {
    return a.priority > b.priority;
  }
  return a.sequence < b.sequence;
}

std::vector<Allocation> Place(const Inventory& inventory, Accounting accounting,
                              const std::vector<Allocation>& running,
                              const std::vector<JobDemand>& queue) {
  std::vector<const JobDemand*> order;
  order.reserve(queue.size());
  for (const JobDemand& job : queue) {
    order.push_back(&job);
  }
  std::ranges::stable_sort(
      order, [](const JobDemand* a, const JobDemand* b) { return StartsBefore(*a, *b); });

  Room room(inventory, accounting, running);
  std::vector<Allocation> started;
  for (const JobDemand* job : order) {
    // A job that does not fit now is skipped, so it does not block the jobs behind it.
    if (std::optional<Allocation> allocation = room.TryTake(*job)) {
      started.push_back(std::move(*allocation));
    }
  }
  return started;
}

}  // namespace trainyard::sched
