// Preemption's victim choice (sched/fair_share.h, "Preemption"), apart so that the pass stays
// readable. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sched/fair_share.h"
#include "sched/room.h"

namespace trainyard::sched {

// A running job that `job` may preempt, with what ranks it among the others.
struct Candidate {
  const RunningJob* running;
  bool borrowed = false;
  WallTime start{};
};

struct VictimChoice {
  std::vector<const RunningJob*> victims;  // in the order they were taken
  Allocation allocation;                   // where `job` goes once they have stopped
};

// The fewest of `candidates` whose room, with `room` (the jobs already stopping given back),
// lets `job` fit: taken borrowed first, then lowest priority, then most recently started; then
// each one not needed (latest taken first) is spared. nullopt when all of them do not suffice.
std::optional<VictimChoice> ChooseVictims(Room room, std::vector<Candidate> candidates,
                                          const JobDemand& job);

}  // namespace trainyard::sched
