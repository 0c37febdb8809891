// The queue's reconcile rule: from the stored jobs, what holds resources and the clock, what to do
// with each QUEUED job now. Pure (no store, no processes, no clock of its own): the executor
// applies the actions (control/executor_queue.cc), and a write that fails is simply derived again
// on the next pass, since nothing here remembers anything between passes.
//
// A job PREPARING, RUNNING or CANCELLING that the executor does not hold (no run, no study: the
// server restarted and could not take it over, or the write that said so was refused) is an
// orphan: whatever is left of it is killed, and it goes back to QUEUED (PREPARING, or suspended),
// or ends FAILED (RUNNING) or CANCELLED (CANCELLING), saying the server restarted. This holds even
// while the queue is held.
//
// Per QUEUED job, in this order:
//   - suspended (its extras): not placed, and out of the positions (ClearPosition once);
//   - past its maxWaitTime: ended CANCELLED;
//   - its cluster cannot be planned, or a replica's machine type is unknown: ended FAILED;
//   - it can never fit the inventory, even empty (unless a cluster manager places): ended FAILED;
//   - otherwise it competes, with the studies' next trials, for room (sched::Place; with a
//     manager every job is handed over at once, in the queue's order): placed jobs start
//     (PlaceJob, PlaceTrial), and every job left waiting gets its position (jobPosition, 1 first)
//     and the reason it waits.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/clock.h"
#include "catalog/catalog.h"
#include "model/job.h"
#include "plan/replicas.h"
#include "sched/inventory.h"
#include "sched/placement.h"
#include "sched/sharing.h"

namespace trainyard::control {

// A QUEUED job as the last queue pass left it (the console's cluster page).
struct QueuedInfo {
  std::string project;
  std::string job_id;
  std::int64_t position = 0;  // 1 first; as the job's jobPosition
  std::string reason;         // why it has not started, one sentence
};

struct QueueWorld {
  // The unfinished jobs as stored, with their projects; only QUEUED ones are looked at.
  const std::vector<std::pair<std::string, model::Job>>& jobs;
  const catalog::Catalog& catalog;
  const sched::Inventory& inventory;
  sched::Accounting accounting = sched::Accounting::kShared;
  // What holds resources now: the running jobs' and trials' allocations, and the room held for
  // studies still staging.
  const std::vector<sched::Allocation>& running;
  // The studies' next trials, each keyed "<study key>/next-<i>", at their job's priority and age.
  const std::vector<sched::JobDemand>& trials;
  WallTime now{};
  // A cluster manager places and queues the jobs itself: every job is handed over at once.
  bool hand_over = false;
  // Start nothing (maintenance): only orphans are seen to.
  bool hold = false;
  // The keys ("project/jobId") of the jobs the executor runs or stages; null before it has
  // taken over what a previous server left (then no job is an orphan yet).
  const std::set<std::string, std::less<>>* held = nullptr;
  const sched::SharingPolicy* sharing = nullptr;  // quotas, shares, priority classes (issue #34)
};

// The job's stored state changes; each applies only if the job is still QUEUED when written.
struct EndQueuedJob {  // CANCELLED (maxWaitTime) or FAILED (cannot run), ending now
  std::string project;
  std::string job_id;
  model::JobState state = model::JobState::kFailed;
  std::string message;
};
struct SetPosition {  // jobPosition; 0 takes a suspended job out of the positions
  std::string project;
  std::string job_id;
  std::int64_t position = 0;
};
// The job leaves the queue on `allocation`, its cluster `shapes`: PREPARING, then staging.
struct PlaceJob {
  std::string project;
  std::string job_id;
  sched::Allocation allocation;
  std::vector<plan::ReplicaShape> shapes;
};
// A job nobody runs (see above): its leftovers are killed, then `from` becomes `to`.
struct EndOrphan {
  std::string project;
  model::Job job;  // as stored
  model::JobState to = model::JobState::kFailed;
  std::string message;  // its errorMessage; "" for QUEUED
};
// A study's next trial has room (`allocation.key` is the trial demand's).
struct PlaceTrial {
  std::string study_key;  // "project/jobId"
  sched::Allocation allocation;
};

using QueueAction = std::variant<EndQueuedJob, SetPosition, PlaceJob, PlaceTrial, EndOrphan>;

struct QueuePass {
  std::vector<QueueAction> actions;  // to apply in order
  std::vector<QueuedInfo> queue;     // the jobs left waiting, in the queue's order
};

QueuePass ReconcileQueue(const QueueWorld& world);

// What an orphan in `state` becomes (see above), nullopt for a state that cannot be orphaned.
std::optional<EndOrphan> OrphanEnd(const std::string& project, const model::Job& job);

}  // namespace trainyard::control
