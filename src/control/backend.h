// The executor's one backend seam: what starts a job's replicas, stops them and reports what they
// do. The executor (control/executor.h) keeps the rules (the queue, the exit policy, the stop and
// its outcome) and calls only this; which backend runs the jobs is chosen once, by the
// composition root (app/), and given as ExecutorOptions::backend:
//   - the local backend (control/local_backend.h, the default): this machine's placement
//     (sched/, decided in the queue pass) and the launcher (run/launcher.h: host processes or
//     containers), one process group per replica, exits reported through Executor::OnExit;
//   - the cluster backend (agent/cluster_job_backend.h): a workload manager
//     (run/cluster_backend.h) places and starts each job whole, and the node agent on each of its
//     nodes (agent/node_agent.h) runs the replicas and records their ends in files.
// Everything runs on the executor's loop thread. A backend reports back through the RunHost the
// executor attaches: a replica's end goes through the exit rules (HandleExit), a start is said
// and stored (MarkStarted), a failure ends the run (BeginStop).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/exit_status.h"
#include "base/status.h"
#include "model/job.h"
#include "plan/cluster_plan.h"
#include "plan/replicas.h"
#include "run/file_view.h"

namespace trainyard::control {

struct JobRun;
struct RunRecord;
class JobLayout;

// What a backend may ask of the executor (the executor implements it).
class RunHost {
 public:
  virtual ~RunHost() = default;
  // Appends the service's message about the run's job to its service log.
  virtual void Say(const JobRun& run, bool error, std::string_view message) = 0;
  // Ends the run in `outcome` once its replicas have stopped (the backend's Stop is called).
  virtual void BeginStop(JobRun& run, model::JobState outcome, std::string message) = 0;
  // Writes the outcome of a stopped run whose replicas have all ended; returns whether it is done.
  virtual bool FinishIfStopped(JobRun& run) = 0;
  // Every replica started: says so, and a PREPARING job becomes RUNNING.
  virtual void MarkStarted(JobRun& run) = 0;
  // A replica's end, through the job's exit rules.
  virtual void HandleExit(JobRun& run, std::size_t replica, const ExitStatus& status) = 0;
  // The job ran past maxRunningTime: RUNNING -> CANCELLING (the stop is the caller's).
  virtual void MarkCancelling(const std::string& project, const std::string& job_id) = 0;
  // Stores the run's record (control/run_record.h), for a restarted server to take it over.
  virtual void SaveRecord(const JobRun& run) = 0;
  // A replica's process ended (as Executor::OnExit): handed back through Backend::Exited on
  // the next pass.
  virtual void ReportExit(int pid, ExitStatus status) = 0;
  // The run of that key the executor holds, null when it holds none (it ended meanwhile).
  virtual JobRun* FindRun(const std::string& key) = 0;
  // What the run's replicas see of the server's files (control/job_view.h).
  virtual run::FileView ReplicaView(const JobRun& run, const model::TrainingInput& input,
                                    const JobLayout& layout) const = 0;
  // The job as stored.
  virtual Result<model::Job> StoredJob(const std::string& project,
                                       const std::string& job_id) const = 0;
  // Now, in whole microseconds, as every time the executor writes.
  virtual WallTime Now() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // Called once, by the executor the backend serves, before anything else.
  virtual void Attach(RunHost& host) = 0;

  // Whether the backend places jobs itself (a cluster manager): the queue then hands every job
  // that fits the catalog over (control/reconcile/queue.h QueueInput::hand_over) instead of
  // placing it on the inventory.
  virtual bool PlacesJobs() const = 0;
  // Whether a replica's reported end is its last: the backend restarts crashed replicas itself
  // (the node agent does, inside the allocation), so the exit rules restart nothing.
  virtual bool RestartsReplicas() const = 0;

  // Starts every replica of `run` (PREPARING, its packages staged), the job's plan from `job`
  // and `context` (all but the ports, which the backend picks), its replicas' shapes and
  // placement in `run`. It sets each replica's spec and start, stores the record, and says when
  // every replica runs (RunHost::MarkStarted); an error ends the run (RunHost::BeginStop).
  virtual void Start(JobRun& run, const model::Job& job, plan::PlanContext context) = 0;
  // Starts one replica of a running run again (a restart the exit rules decided); a backend
  // that restarts replicas itself refuses (FAILED_PRECONDITION).
  virtual Status StartReplica(JobRun& run, std::size_t replica) = 0;
  // Asks every live replica of `run` to stop (SIGTERM to each process group; a manager's cancel).
  virtual void Stop(JobRun& run) = 0;
  // The stop's grace is over: kills the replicas still alive (a manager that escalates to SIGKILL
  // itself does nothing).
  virtual void Kill(JobRun& run) = 0;
  // Every replica has ended: kills what they left behind in their process groups (called once).
  virtual void KillLeftovers(const JobRun& run) = 0;

  // Once a pass, before the runs are looked at: asks the world what it needs (a manager's states).
  virtual void Poll() = 0;
  // What is observed of `run` since the last pass: its replicas' ends, the manager's start or end
  // of its job, reported through the RunHost. (The local backend's ends come as exit events.)
  virtual void Observe(JobRun& run) = 0;
  // A process ended, as reported through Executor::OnExit (from any thread; this is called on
  // the loop thread, before the runs are looked at): the end of the replica it was, if any
  // (RunHost::HandleExit).
  virtual void Exited(int pid, const ExitStatus& status) = 0;
  // Whether the run's replicas wait for the backend to start them (a manager's pending job).
  virtual bool Pending(const JobRun& run) const = 0;
  // Completes the run's record with what the backend needs to take it over (RunHost::SaveRecord).
  virtual void Record(const JobRun& run, RunRecord& record) const = 0;

  // After a server restart: takes over the run a previous server recorded (`run` holds the job's
  // keys, restarts and extras, no replicas; `shapes` are the job's, in the record's order). False
  // when it cannot (not this backend's record, not this machine's, unknown whether a replica
  // runs); then the executor kills what was recorded (KillRecorded).
  virtual bool Adopt(JobRun& run, const model::Job& job, const RunRecord& record,
                     std::vector<plan::ReplicaShape> shapes) = 0;
  // Whether the record is of a job the backend accepted whole (a manager's job): taken over in
  // any state, started or not, and said started when the backend reports it.
  virtual bool Submitted(const RunRecord& record) const = 0;
  // Kills whatever still runs of a record that is not taken over.
  virtual void KillRecorded(const RunRecord& record) = 0;
  // Kills the replicas of `job` whose start never reached its record (the server died between
  // the two).
  virtual void KillUnrecorded(const model::Job& job, const JobLayout& layout) = 0;
  // The run is over and gone from the executor: what the backend keeps of it goes too.
  virtual void Forget(const JobRun& run) = 0;
};

}  // namespace trainyard::control
