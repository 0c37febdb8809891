// Placement: which queued jobs start now, and on which devices. A pure function of the queue, the
// inventory and what is already running, so every policy is unit-tested without processes.
//
// Policy:
// - Gang: a job is placed with all of its replicas or not at all.
// - Accelerators are exclusive: a device is given to one replica at a time, by index, lowest
//   free indices first on the chosen node.
// - Node selection: a replica with a `node_selector` goes only to nodes carrying all of its
//   labels (Node::HasLabels); one without goes anywhere.
// - CPU and memory: `kStrict` counts each replica's machine type (vCPUs, memory) against its
//   node; `kShared` (a workstation) lets replicas share CPUs and memory freely.
// - Order: higher `scheduling.priority` first, then FIFO (`sequence`, the create time). A job
//   that does not fit now is skipped, not waited for: later jobs that fit start (no
//   head-of-line blocking).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sched/inventory.h"

namespace trainyard::sched {

enum class Accounting { kShared, kStrict };

struct ReplicaDemand {
  std::string task_name;     // "worker-replica-1"
  std::string machine_type;  // "n1-highcpu-16", named in never-fits messages
  int cpus = 0;
  std::int64_t memory_mib = 0;
  std::string accelerator;  // "" when none
  int accelerator_count = 0;
  // The labels its node must have: its role's nodeSelector from the job's extras
  // (model::RoleExtras::node_selector); empty for any node, as for every ml v1 job.
  std::map<std::string, std::string> node_selector = {};
};

struct JobDemand {
  std::string key;  // "project/jobId"
  int priority = 0;
  std::int64_t sequence = 0;  // FIFO order among equal priorities (smaller first)
  std::vector<ReplicaDemand> replicas;
  // Read by sharing (sched/fair_share.h) only; Place ignores them.
  std::string project = {};  // "" = the key's part before its first '/'
  std::optional<std::chrono::nanoseconds> max_running_time = {};  // scheduling.maxRunningTime
  // It was first in the queue on the last pass (its jobPosition is 1): it keeps that place among
  // jobs of its priority, so a reservation holds until its job starts, when it needs more than
  // one device or accounting is strict (sched/fair_share.h, "Order").
  bool head = false;
};

// Where one replica runs. It carries the replica's CPU and memory demand (copied from its
// `ReplicaDemand` when placed) so that a running allocation alone says what it holds: `Place`
// counts these against the node under `kStrict` accounting.
struct ReplicaAssignment {
  std::string task_name;
  std::size_t node = 0;             // index into Inventory::nodes
  std::vector<int> device_indices;  // Device::index values on that node, ascending
  int cpus = 0;
  std::int64_t memory_mib = 0;
};

struct Allocation {
  std::string key;
  std::vector<ReplicaAssignment> replicas;  // in the order of JobDemand::replicas
  // Its job is being stopped (ending, suspended or preempted): it holds its room until its
  // replicas have exited, but sharing never picks it as a victim again. Place ignores it.
  bool stopping = false;
};

// The demand of one replica of `machine_type` (a catalog machine type, legacy or Compute Engine)
// with `accelerator_count` × `accelerator` attached ("", 0 for none). A machine type's built-in
// accelerators (legacy *_gpu types, a2-*, cloud_tpu) are part of its demand: a request naming no
// accelerator or the built-in one gets the built-in count; one naming another type is
// INVALID_ARGUMENT, except where the catalog's count table offers that type on the machine type
// (cloud_tpu with TPU_V3), which then replaces the built-in. Memory is `memory_gb` × 1024 MiB,
// rounded up. INVALID_ARGUMENT when the catalog does not know the machine type or the
// accelerator, or when a named accelerator's count is not positive. `node_selector` is left
// empty for the caller, who knows the replica's role, to set.
Result<ReplicaDemand> DemandOf(std::string task_name, std::string_view machine_type,
                               std::string_view accelerator, int accelerator_count,
                               const catalog::Catalog& catalog);

// The queue's order (docs/reference/ai-platform-training.md §2.3, `Scheduling.priority`): higher
// priority first, then FIFO (smaller `sequence`). Place considers jobs in this order; it is also
// the order of jobPosition.
bool StartsBefore(const JobDemand& a, const JobDemand& b);

// The jobs of `queue` that start now, in the order they were chosen, given `running` (the
// allocations of jobs still holding resources). Does not return jobs that do not fit now.
// Each replica, in order, goes to the first node (in inventory order) that has its
// `node_selector`'s labels and where it fits; there is no backtracking. A running assignment
// naming a node the inventory lacks holds nothing.
std::vector<Allocation> Place(const Inventory& inventory, Accounting accounting,
                              const std::vector<Allocation>& running,
                              const std::vector<JobDemand>& queue);

// Why `job` can never start on `inventory`, even empty, as a sentence for `errorMessage`:
// "needs 40 × NVIDIA_TESLA_T4 (4 per replica); the largest node has 0." (or the per-replica
// device/CPU/memory shortfall, counted on the nodes a replica's node selector allows: "the
// largest node labelled nvidia=t4 has 0."), or, when no node has a selector's labels, "needs a
// node labelled nvidia=t4 for worker-replica-0 (its nodeSelector), and no node is: n1 has
// nvidia=v100; n2, n3 have no nvidia label." nullopt when it fits an empty inventory.
std::optional<std::string> NeverFits(const Inventory& inventory, Accounting accounting,
                                     const JobDemand& job);

}  // namespace trainyard::sched
