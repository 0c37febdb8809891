// The cluster backend (control/backend.h) with a workload manager (run/cluster_backend.h): a job,
// or a tuning trial, becomes one manager job whose tasks are its replicas. The manager places and
// starts it; each task runs `trainyard batch-task` (agent/node_agent.h), which starts the replica
// under its supervisor with the same environment the local backend gives and records its output
// in the job's log files and its end in its exit file, on the file system every node shares.
// Here: submit (the launch file, agent/batch_launch.h), follow the manager's state and the
// tasks' exit files, cancel, take over after a restart. The exit policy is the executor's
// (control/reconcile/replica_policy.h); restarts of crashed replicas happen inside the
// allocation (RestartsReplicas), and the manager escalates a cancel to SIGKILL itself.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "catalog/catalog.h"
#include "control/backend.h"
#include "control/reconcile/replica_policy.h"
#include "run/cluster_backend.h"

namespace trainyard::agent {

struct ClusterJobOptions {
  std::string data_dir;  // jobs/ are under it (control/job_layout.h), on every node
  // Each task runs `task_command` + `--launch <launch file>`: {"/usr/bin/trainyard",
  // "batch-task", <the operator's container flags>…}.
  std::vector<std::string> task_command;
  std::string supervisor;  // trainyard-replica's path on the nodes
  int first_port = 20000;  // replicas' ports are picked in [first, first + count)
  int port_count = 10000;
  // Node name -> the address replicas reach it at; nodes not listed are looked up by the task.
  std::map<std::string, std::string, std::less<>> node_addresses;
  std::chrono::milliseconds poll{1000};  // how often the manager is asked for states
  control::RestartPolicy restart;        // what the tasks restart their replicas by
};

class ClusterJobBackend final : public control::Backend {
 public:
  // `manager` is not owned and outlives the backend. `earlier_local`, when set (not owned,
  // outlives the backend), is the backend a server without a manager ran jobs with on this data
  // directory: a run it recorded (no manager's job in its record) cannot be taken over here, so
  // the executor ends it as an orphan, and its replicas, still running on this machine, are
  // killed through it (KillRecorded, KillUnrecorded). Without it they would run on, holding their
  // devices, under a job that says it FAILED.
  ClusterJobBackend(run::ClusterBackend& manager, const catalog::Catalog& catalog,
                    const Clock& clock, ClusterJobOptions options,
                    control::Backend* earlier_local = nullptr);

  void Attach(control::RunHost& host) override { host_ = &host; }
  bool PlacesJobs() const override { return true; }
  bool RestartsReplicas() const override { return true; }
  void Start(control::JobRun& run, const model::Job& job, plan::PlanContext context) override;
  Status StartReplica(control::JobRun& run, std::size_t replica) override;
  void Stop(control::JobRun& run) override { Cancel(run); }
  void Kill(control::JobRun& /*run*/) override {}  // the manager escalates (its KillWait)
  void KillLeftovers(const control::JobRun& /*run*/) override {}
  void Poll() override;
  void Observe(control::JobRun& run) override;
  void Exited(int /*pid*/, const ExitStatus& /*status*/) override {}  // ends are exit files
  bool Pending(const control::JobRun& run) const override;
  void Record(const control::JobRun& run, control::RunRecord& record) const override;
  bool Adopt(control::JobRun& run, const model::Job& job, const control::RunRecord& record,
             std::vector<plan::ReplicaShape> shapes) override;
  bool Submitted(const control::RunRecord& record) const override;
  void KillRecorded(const control::RunRecord& record) override;
  // A task starts only once its record names the manager's job: what is unrecorded is an
  // earlier local run's.
  void KillUnrecorded(const model::Job& job, const control::JobLayout& layout) override;
  void Forget(const control::JobRun& run) override;

 private:
  // The manager's job of a run.
  struct Batch {
    std::string id;                         // the manager's job id
    int first_port = 0;                     // task i listens on first_port + i
    int ports = 0;                          // how many from first_port (tasks + PyTorch's)
    bool running = false;                   // the manager has started it
    std::string reason;                     // the last pending reason said in the service log
    std::optional<MonoTime> finished_seen;  // the manager says it ended; exit files awaited
    MonoTime cancelled_at{};
    bool cancel_sent = false;
  };

  // Asks the manager to end the run's job (once, again after a while if it does not).
  void Cancel(control::JobRun& run);
  void EndWithoutReplicas(control::JobRun& run, Batch& batch, const run::ClusterJobState& state);
  // The first of `count` consecutive ports no running batch run uses.
  int PickPorts(int count);

  run::ClusterBackend& manager_;
  const catalog::Catalog& catalog_;
  const Clock& clock_;
  ClusterJobOptions options_;
  control::RunHost* host_ = nullptr;
  control::Backend* earlier_local_ = nullptr;
  std::map<std::string, Batch> batches_;                // by JobRun::key
  std::map<std::string, run::ClusterJobState> states_;  // by manager id, as last polled
  MonoTime next_poll_{};
  int next_port_ = -1;  // offset into the port range; -1: not picked yet
};

}  // namespace trainyard::agent
