// A cluster workload manager that places and starts a whole job (all its replicas together) on
// its own nodes: the seam between the executor and Slurm (run/slurm/slurm_backend.h). With such
// a backend, trainyard's own placement (sched/) is not used: the manager decides where and when,
// and every task of the job runs the same `task_command` (`trainyard batch-task`, which works out
// its replica from the manager's environment; agent/node_agent.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace trainyard::run {

// One role of the job (master, workers, parameter servers, evaluators): `tasks` replicas, each
// on a node of its own (one task per node, as each AI Platform replica is its own VM).
struct ComponentRequest {
  std::string role;  // "master", "worker", "parameter_server", "evaluator" (for messages)
  int tasks = 1;
  int cpus_per_task = 1;
  std::int64_t memory_mib = 0;  // per task (= per node); 0: none asked
  std::string accelerator;      // catalog name ("NVIDIA_TESLA_T4"); "" when none
  int accelerator_count = 0;    // per task
};

struct ClusterJobRequest {
  std::string name;  // the manager's job name ("ty-<project>-<job>[-<trial>]")
  // Components in task order: task ids (SLURM_PROCID) run through component 0's tasks, then
  // component 1's, and so on.
  std::vector<ComponentRequest> components;
  // Run once per task, with the manager's environment (argv[0] an absolute path).
  std::vector<std::string> task_command;
  std::string working_dir;  // the batch step's working directory (a directory every node sees)
  std::string output_path;  // the batch step's own stdout and stderr (not the replicas')
  std::optional<std::chrono::seconds> time_limit;  // scheduling.maxRunningTime
  std::int32_t priority = 0;                       // scheduling.priority (0..1000)
};

// What the manager says of a job.
struct ClusterJobState {
  enum class Phase {
    kPending,   // waiting for resources (or requeued and waiting again)
    kRunning,   // started (or ending: COMPLETING)
    kFinished,  // ended; `state` says how
    kUnknown,   // the manager no longer knows the job (purged, or never existed)
  };
  Phase phase = Phase::kUnknown;
  std::string state;   // the manager's word: "PENDING", "RUNNING", "COMPLETED", "TIMEOUT", …
  std::string reason;  // why it is pending or how it ended ("Resources", "NonZeroExitCode"), or ""
  // The job's id in the manager, as Submit returned it.
  std::string id;
};

class ClusterBackend {
 public:
  virtual ~ClusterBackend() = default;

  // "Slurm": for messages ("The Slurm job 123 ended TIMEOUT").
  virtual std::string Name() const = 0;

  // Submits the job; returns the manager's id for it. FAILED_PRECONDITION with the manager's
  // message when it refuses the job (no such partition, resources no node has, …); INTERNAL when
  // the manager cannot be reached.
  virtual Result<std::string> Submit(const ClusterJobRequest& request) = 0;

  // Asks the manager to end the job (its tasks get SIGTERM, then SIGKILL after the manager's
  // grace). A job that already ended is not an error.
  virtual Status Cancel(const std::string& id) = 0;

  // The state of each of `ids` (every id gets an entry; kUnknown when the manager has no record
  // of it). One round trip to the manager for all of them. INTERNAL when it cannot be asked.
  virtual Result<std::map<std::string, ClusterJobState>> Query(
      const std::vector<std::string>& ids) = 0;
};

}  // namespace trainyard::run
