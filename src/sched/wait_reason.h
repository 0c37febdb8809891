// Why a queued job has not started (the console's cluster page, control/executor.h QueuedInfo):
// one sentence naming what the job needs all at once (gang placement) and how much of each
// accelerator is free now. Pure.
#pragma once

#include <string>
#include <vector>

#include "sched/inventory.h"
#include "sched/placement.h"
#include "sched/room.h"

namespace trainyard::sched {

// "Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 of 1 free)." for `job`, given the
// allocations still holding resources (`running`, as `Place` takes them). A job without
// accelerators is said to need its vCPUs.
std::string WaitReason(const Inventory& inventory, const std::vector<Allocation>& running,
                       const JobDemand& job);
// The same, given the room that is left (sched/room.h).
std::string WaitReason(const Room& room, const JobDemand& job);

}  // namespace trainyard::sched
