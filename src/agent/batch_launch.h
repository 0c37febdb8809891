// What a job run through a cluster backend (run/cluster_backend.h) hands to its tasks: the launch
// file, written by the executor next to the run record (`JobLayout::launch_file()`) before the job
// is submitted, and read by `trainyard batch-task` on every task of the allocation
// (agent/node_agent.h). It carries everything the task needs to compute the same process the
// local backend starts (control/replica_specs.h): the job itself, the plan context
// but for addresses and devices (those come from the allocation), the ports picked for the run,
// and where the job's files are (a directory every node sees).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "control/reconcile/replica_policy.h"
#include "model/job.h"
#include "plan/cluster_plan.h"

namespace trainyard::agent {

struct BatchLaunch {
  model::Job job;
  std::string project;
  std::string trial_id;  // "" unless a tuning trial
  std::string data_dir;  // JobLayout(data_dir, project, job.job_id, trial_id) holds the files
  // Every field but pytorch_master_port, which is first_port + the task count, and
  // containers_on_host, the task's own flag.
  plan::PlanContext context;
  // Task i (the manager's task id) listens on first_port + i.
  int first_port = 0;
  // Node name -> the address replicas reach it at (the operator's node_addresses); nodes not
  // listed are looked up by the task.
  std::map<std::string, std::string, std::less<>> node_addresses;
  std::string supervisor;  // trainyard-replica's path on the nodes
  control::RestartPolicy restart;
};

std::string EncodeBatchLaunch(const BatchLaunch& launch);
// INVALID_ARGUMENT naming what is wrong when `text` is not a launch file.
Result<BatchLaunch> DecodeBatchLaunch(std::string_view text);

// Atomic write (temporary file, rename; directories created); INTERNAL on failure.
Status WriteBatchLaunch(const std::string& path, const BatchLaunch& launch);
// NOT_FOUND when there is no file; INVALID_ARGUMENT when it is not a launch file.
Result<BatchLaunch> ReadBatchLaunch(const std::string& path);

// What a task writes when its replica starts (`JobLayout::started_path(task)`), rewritten on each
// in-allocation restart; the executor reads it for the replicas endpoint and the restart count.
struct TaskStarted {
  std::string node;  // the manager's node name
  std::string host;  // the address in the replica's TF_CONFIG
  int pid = 0;       // the task's process on that node
  int restarts = 0;  // in-allocation restarts so far
};
std::string EncodeTaskStarted(const TaskStarted& started);
Result<TaskStarted> DecodeTaskStarted(std::string_view text);

}  // namespace trainyard::agent
