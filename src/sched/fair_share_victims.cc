#include "sched/fair_share_victims.h"

#include <algorithm>
#include <tuple>

namespace trainyard::sched {

std::optional<VictimChoice> ChooseVictims(Room room, std::vector<Candidate> candidates,
                                          const JobDemand& job) {
  std::ranges::stable_sort(candidates, [](const Candidate& a, const Candidate& b) {
    // Borrowed first, then the lowest priority, then the most recently started (then the key,
    // so that the same world gives the same victims).
    return std::tuple(!a.borrowed, a.running->priority, b.start, a.running->allocation.key) <
           std::tuple(!b.borrowed, b.running->priority, a.start, b.running->allocation.key);
  });
  VictimChoice choice;
  for (const Candidate& candidate : candidates) {
    if (room.Fits(job)) {
      break;
    }
    room.Give(candidate.running->allocation);
    choice.victims.push_back(candidate.running);
  }
  if (!room.Fits(job)) {
    return std::nullopt;
  }
  // Spare each victim the job can do without, the latest taken (the one losing most) first.
  for (std::size_t i = choice.victims.size(); i-- > 0;) {
    room.Take(choice.victims[i]->allocation);
    if (room.Fits(job)) {
      choice.victims.erase(choice.victims.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      room.Give(choice.victims[i]->allocation);
    }
  }
  if (choice.victims.empty()) {
    return std::nullopt;
  }
  choice.allocation = *room.TryTake(job);
  return choice;
}

}  // namespace trainyard::sched
