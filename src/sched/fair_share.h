// Sharing the devices between projects (issue #34): quotas with borrowing and reclaim, fair share,
// a reservation against starvation, and preemption. One pure pass over the queue, the inventory
// and what runs; the queue's reconcile rule (control/reconcile/queue.h) calls it and the executor
// applies what it decides. Place (sched/placement.h) stays the per-job fitting rule (sched/room.h).
//
// Quotas (sched/sharing.h; a project without one, or a null policy, has no limits and weight 1):
// - A project's running jobs, oldest first, count against its quota; a job that takes the
//   project past a limit on accelerators of a type, vCPUs or memory is *borrowed*: it runs on
//   room the other projects leave idle (all projects form one cohort, as in Kueue). A queued job
//   may start beyond its quota only on devices free now.
// - `jobs` is a hard limit: a project at it starts nothing more.
// Order (the queue's positions): higher priority first; among equal priorities, the job that was
// first on the last pass (JobDemand::head: so a reservation holds until its job starts, however
// the shares move meanwhile) when it needs more than one device, or under kStrict accounting (a
// head of one device, or none, fits whenever one frees, so losing its place cannot starve it,
// and keeping it would place by the shares of the pass before: 61 % instead of 66.7 % for a
// weight of 2 against 1 with 1-GPU jobs, bench/scheduling/README.md), then the project with the
// smallest weighted dominant share (DRF,
// sched/project_share.h: its use of each accelerator type, and of vCPUs and memory under kStrict
// accounting, over the inventory's, the largest of these divided by its weight; recomputed after
// each start), then
// FIFO.
// Reservation (Slurm's backfill): the first job in that order that does not fit gets a
// reservation: the devices it would get once enough running jobs end, in the order of their
// expected end (start + maxRunningTime; without one, never), and that time. A later job starts
// only if it fits without those devices, or if it fits and its own maxRunningTime ends before
// the reservation's time (never when that time is unknown).
// Preemption: before it is given a reservation, that first job may preempt running jobs
// (never one that is stopping already, a trial, or one labelled `trainyard-preemptible: "false"`):
// - priority: jobs of lower priority, of its own project or of a project without a quota, or
//   borrowed ones;
// - reclaim: when it would stay within its project's quota, borrowed jobs of other projects.
// Victims are taken borrowed first, then lowest priority, then most recently started (the least
// work lost), until the job fits; then each one it can do without (latest taken first) is
// spared. If the job would fit once the jobs already stopping have ended, it waits for them
// instead. At most one job preempts per pass, so victims are never chosen twice.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "sched/inventory.h"
#include "sched/placement.h"
#include "sched/sharing.h"

namespace trainyard::sched {

// The label that keeps a job from being preempted when its value is "false".
inline constexpr std::string_view kPreemptibleLabel = "trainyard-preemptible";

// A job holding resources, as sharing sees it.
struct RunningJob {
  Allocation allocation;  // what it holds (`stopping` included)
  std::string project;    // "" = the allocation key's part before its first '/'
  int priority = 0;
  std::optional<WallTime> start;  // when it started; nullopt: now
  std::optional<std::chrono::nanoseconds> max_running_time;
  bool preemptible = true;  // false: labelled trainyard-preemptible "false", or a study's trial
};

struct ShareInput {
  const Inventory& inventory;
  Accounting accounting = Accounting::kShared;
  const std::vector<RunningJob>& running;
  const std::vector<JobDemand>& queue;
  const SharingPolicy* policy = nullptr;  // null: no quotas, equal weights
  WallTime now{};
  // Each project's recent use, in seconds of the whole inventory (a project that held half of
  // every resource for an hour: 1800), decayed as the caller likes; null: none is known. The
  // order then ranks a project by this plus its current dominant share times `usage_horizon`,
  // over its weight, so device-time converges to the weights even when one job fills the
  // inventory (an instant's share alone cannot see that).
  const std::map<std::string, double, std::less<>>* usage = nullptr;
  std::chrono::seconds usage_horizon{3600};
};

struct Preemption {
  std::string victim;   // its key
  std::string by;       // the key of the job it makes room for
  std::string message;  // for the victim's history: why, and by what
};

struct Waiting {
  std::string key;
  std::string reason;  // one sentence (or two)
};

struct SharePass {
  std::vector<Allocation> start;        // in the order chosen
  std::vector<Preemption> preempt;      // the victims to stop and queue again
  std::vector<Waiting> waiting;         // the jobs that do not start, in the queue's order
  std::optional<std::string> reserved;  // the key of the job holding the reservation
};

SharePass Share(const ShareInput& input);

// Whether `labels` let the job be preempted (kPreemptibleLabel absent or not "false").
bool PreemptibleByLabels(const std::map<std::string, std::string>& labels);

}  // namespace trainyard::sched
