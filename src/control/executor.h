// The reconcile loop: takes QUEUED jobs through placement, staging and launch to a terminal
// state (docs/reference/ai-platform-training.md §2.7), applying the replica exit policy
// (control/reconcile/replica_policy.h), cancels and the `scheduling` time limits.
//
//   QUEUED ──place──► PREPARING ──stage, plan, start every replica──► RUNNING
//     │ never fits: FAILED          │ staging/plan/start error: FAILED     │
//     │ maxWaitTime: CANCELLED      │ maxWaitTime: CANCELLED               ▼
//                                             master exits 0 ─► stop the rest ─► SUCCEEDED
//                                             a replica fails ─► stop the rest ─► FAILED
//                               cancel (CANCELLING) or maxRunningTime ─► stop ─► CANCELLED
//                               suspended (extras) ─► stop ─► QUEUED (startTime cleared)
//                               preempted (PreemptJob) ─► stop ─► QUEUED, as suspended
//
// Replicas are started, stopped and observed through one backend (control/backend.h: the local
// one, or a cluster manager's, which also places). "Stop" asks every replica to end (SIGTERM to
// its process group; a manager's cancel), then kills it after `stop_grace`; the job's terminal
// state is written once every replica has exited, so a job that is SUCCEEDED, FAILED or
// CANCELLED has no process left. Resources are released at the same moment.
//
// Every state change is a compare-and-swap through the JobController, so a cancel racing with a
// transition is never lost. One thread runs the loop; staging runs on `run_async` (threads by
// default, inline in tests); the local backend's launcher reports exits through `OnExit`, from
// any thread.
// Times: `startTime` is set on leaving QUEUED; maxWaitTime counts from `createTime` while QUEUED
// or PREPARING, maxRunningTime from `startTime`.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "catalog/catalog.h"
#include "control/backend.h"
#include "control/job_controller.h"
#include "control/reconcile/queue.h"
#include "control/reconcile/replica_policy.h"
#include "control/run_record.h"
#include "plan/cluster_plan.h"
#include "plan/replicas.h"
#include "run/container_runtime.h"
#include "run/launcher.h"
#include "run/stager.h"
#include "sched/amounts.h"
#include "sched/inventory.h"
#include "sched/placement.h"
#include "sched/recent_usage.h"
#include "store/job_store.h"
#include "store/sharing_store.h"

namespace trainyard::control {

class JobLayout;
struct JobRun;

struct ExecutorOptions {
  std::string data_dir;               // jobs/ are under it (control/job_layout.h)
  std::string gcs_mount;              // the bucket store's root: gs://b/o is <gcs_mount>/b/o
  std::string storage_emulator_host;  // given to replicas as STORAGE_EMULATOR_HOST
  // The token a job's replicas get as TRAINYARD_TOKEN (issue #17; store/job_tokens.h); unset
  // when the server checks no tokens.
  std::function<std::string(std::string_view project, std::string_view job_id)> job_token;
  sched::Inventory inventory;
  sched::Accounting accounting = sched::Accounting::kShared;
  std::string python = "python3";  // interpreter for runtime-version jobs
  // Added to every replica's PYTHONPATH after the staged packages: trainyard's own Python
  // modules (`hypertune`), "" for none.
  std::string runtime_pythonpath;
  // pythonVersion ("3.7") -> interpreter, when an operator has several.
  std::map<std::string, std::string, std::less<>> python_by_version;
  RestartPolicy restart;
  std::chrono::milliseconds stop_grace{10'000};
  std::chrono::milliseconds tick{200};  // how often the loop looks at timers without a wake-up
  bool hold_queue = false;              // start no QUEUED job (running ones go on)

  // What starts, stops and observes the replicas (control/backend.h), chosen by the composition
  // root; not owned. Null: the local backend (control/local_backend.h) on `inventory` with the
  // executor's launcher.
  Backend* backend = nullptr;

  // Pulls the images of container jobs in PREPARING (progress in the job's service log); the
  // launcher runs them. Not owned; null: container jobs FAIL saying there is no engine.
  run::ContainerRuntime* containers = nullptr;
  // `--containers host`: a container replica runs its containerCommand on the host, no image is
  // pulled (replica_container.h HostCommand).
  bool containers_on_host = false;

  // What a replica sees of the server's files (control/job_view.h): the names of a project's
  // buckets, shown to its jobs (unset: none), and the job user's HOME, made private to each job
  // ("" for none). Every local replica gets its view (ProcessSpec::view; a container's mounts);
  // the launcher applies it when it runs jobs as another user. Cluster tasks get none.
  std::function<std::vector<std::string>(std::string_view project)> project_buckets;
  std::string job_home;
  // Where each job's private directories are, in `<private_root>/<project>/<job>` (shared by its
  // replicas, removed when the job ends); "": each replica gets empty ones of its own.
  std::string private_root;

  // Where each project's recent use of the devices (the fair-share order's memory,
  // sched/recent_usage.h) is kept across a restart: read back, decayed for the time the server
  // was down, at Start(); written when device-time was counted, at most once every
  // `usage_write_interval`, and at Stop(). Not owned; null: kept in memory only.
  store::SharingStore* usage_store = nullptr;
  std::chrono::seconds usage_write_interval{60};

  // Where the loop reports what it could not do and will try again (a store write refused):
  // the server's log. Unset: stderr, prefixed "trainyard: ".
  std::function<void(std::string_view)> warn;
};

// A replica as `Executor::Replicas` reports it (the `/trainyard/v1/…/replicas` endpoint).
struct ReplicaInfo {
  std::string task_name;
  std::string trial_id;  // the tuning trial it belongs to ("" for other jobs)
  // PENDING (a cluster manager has not started it yet), RUNNING, RESTARTING (waiting for its
  // backoff), STOPPING, EXITED
  std::string state;
  int pid = 0;  // its supervisor's (the process group's), 0 before the first start
  int restarts = 0;
  std::string exit_status;  // how its last start ended ("exited with status 0"), if it did
  std::optional<WallTime> started_at;  // its last start (unset before the first)
  std::optional<WallTime> ended_at;    // when its last start ended, if it did
  std::string node;                    // the inventory node it was placed on ("" before placement)
  std::vector<int> device_indices;     // the devices it holds there (Device::index)
};

class Executor : private RunHost {
 public:
  using AsyncRunner = std::function<void(std::function<void()>)>;

  // `run_async` runs staging work; empty: a new thread each time (joined by Stop()).
  Executor(JobController& controller, const store::JobStore& store, const catalog::Catalog& catalog,
           const Clock& clock, run::Launcher& launcher, run::Stager& stager,
           ExecutorOptions options, AsyncRunner run_async = {});
  ~Executor() override;
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Recovers what a previous server left (see Recover), then runs the loop on its own thread.
  void Start();
  // Stops the loop; only the first call does anything. With `stop_replicas`, then stops every
  // job's replicas (SIGTERM, grace, SIGKILL): RUNNING jobs become FAILED, PREPARING ones are
  // left to recovery (back to QUEUED). Without, leaves the replicas running for the next
  // server to adopt (Recover). The destructor calls Stop(true) when Stop was not called.
  void Stop(bool stop_replicas = true);

  // The replicas of a job this executor is running, as of the end of its last pass; nullopt
  // when it runs nothing for that job (queued, preparing without replicas, or finished).
  // Thread-safe.
  std::optional<std::vector<ReplicaInfo>> Replicas(std::string_view project,
                                                   std::string_view job_id) const;

  // Every job's replicas as Replicas() reports them, by "project/jobId". Thread-safe.
  std::map<std::string, std::vector<ReplicaInfo>, std::less<>> AllReplicas() const;
  // The queue as of the last scan, in the order it is considered. Thread-safe.
  std::vector<QueuedInfo> Queue() const;

  // The sharing policy the queue's passes read (issue #34; QueueWorld::sharing): the daemon sets
  // the one loaded at start and each one the admin API makes. Thread-safe; wakes the loop.
  void SetSharingPolicy(SharingPolicyPtr policy);
  // Each project's use as of the last pass (sched/quota_check.h UseByProject), by project.
  // Thread-safe.
  std::map<std::string, sched::Amounts, std::less<>> UseByProject() const;

  // Something changed (a submit, a cancel): reconcile soon.
  void Wake();
  // The launcher's exit callback (the local backend's: Backend::Exited).
  void OnExit(int pid, ExitStatus status);

  // One pass of the loop on the caller's thread (tests drive the executor with this and a fake
  // clock instead of Start()).
  void RunOnce();

  // Takes over the jobs a previous server left PREPARING, RUNNING or CANCELLING, from their run
  // records (control/run_record.h):
  //   - RUNNING and CANCELLING: the backend takes the record over (Backend::Adopt; locally every
  //     recorded replica whose supervisor still runs is adopted by pid); one that ended meanwhile
  //     is handled as if its exit had just been reported, with the status its supervisor wrote (so
  //     the master's exit 0 still succeeds the job, a crash is still restarted); a CANCELLING job
  //     goes on stopping. A RUNNING job without a record (the server died before its first replica
  //     was recorded) FAILS, a CANCELLING one is CANCELLED, each saying the server restarted.
  //   - PREPARING with every replica started and recorded (the server died before it stored
  //     RUNNING): taken over as RUNNING is, and stored RUNNING.
  //   - PREPARING with a job the backend accepted whole (Backend::Submitted: a manager's job):
  //     taken over, and RUNNING once the backend says it started.
  //   - PREPARING otherwise: what was started is killed and the job goes back to QUEUED.
  // Called by Start(), and by each queue scan until it could list the jobs; public for tests.
  void Recover();

 private:
  using Run = JobRun;
  struct Study;
  struct Event;

  void Loop();
  void ReapWorkers();
  void StopAllReplicas();
  void Post(Event event);
  void ProcessEvent(Event& event);
  // A replica's end, through the job's exit rules (executor_replicas.cc, with what follows).
  void HandleExit(Run& run, std::size_t replica, const ExitStatus& status) override;
  // Stops every replica; CheckRestarts starts them all again after `backoff`.
  void RestartJob(Run& run, std::chrono::milliseconds backoff);
  // Starts the replicas (or the whole cluster) whose restart is due.
  void CheckRestarts(Run& run);
  // The stored job asks to be suspended, or the queue preempts it (PreemptJob): says `why` in its
  // history, stops its replicas, then puts it back in the queue (Requeue).
  void Suspend(Run& run, std::string_view why);
  // A suspended run's replicas have all ended: the job is QUEUED again.
  void Requeue(Run& run, double ml_units);
  // `job`: as Launch takes it.
  void HandleStaged(const std::string& key, const Status& status,
                    std::optional<model::Job> job = std::nullopt);
  // Stops each staging whose run or study no longer waits for it.
  void StopUnwantedStaging();
  // Makes every image available (on a staging thread), saying so in `service_log`.
  Status PullImages(const std::vector<std::string>& images, const std::string& service_log);
  // `job`: the job as stored, when the caller has just written it (nothing is read then).
  void Launch(Run& run, std::optional<model::Job> job = std::nullopt);
  // Every replica started: says so, and a PREPARING job becomes RUNNING.
  void MarkStarted(Run& run) override;
  // Hyperparameter tuning (executor_study.cc).
  std::unique_ptr<Study> NewStudy(const std::string& project, const model::Job& job);
  void BeginStudy(const std::string& project, const model::Job& job, sched::Allocation pending);
  bool StartTrial(Study& study, sched::Allocation allocation);
  // Returns whether a study now wants more trials than before (so the queue is scanned now).
  bool CheckStudies();
  bool CheckStudy(Study& study);
  void FinishStudy(Study& study);
  void FinishTrial(Run& run, double ml_units);
  // Merges the new reports under `tag` in the trial's master metric file into run.metrics.
  void ReadTrialMetrics(Run& run, const Study* study);
  bool ShouldStopTrial(const Run& run) const;
  void RecoverStudy(const std::string& project, const model::Job& job);
  Study* StudyOf(const Run& run);
  std::size_t TrialRunsOf(const Study& study) const;
  std::vector<sched::JobDemand> TrialDemands() const;
  // Appends a service message to the job's service log (task "service"), or a trial's.
  void SayTo(const std::string& project, const std::string& job_id, const std::string& trial_id,
             bool error, std::string_view message);
  void SaveRecord(const Run& run) override;
  void ReportExit(int pid, ExitStatus status) override;
  JobRun* FindRun(const std::string& key) override;
  Result<model::Job> StoredJob(const std::string& project,
                               const std::string& job_id) const override;
  // `trial` is null for a plain job, else the tuning trial the record is of.
  bool Adopt(const std::string& project, const model::Job& job, const RunRecord& record,
             const model::HyperparameterOutput* trial = nullptr);
  // Appends the service's message about `run`'s job to its service log (task "service").
  void Say(const Run& run, bool error, std::string_view message) override;
  void PublishReplicas();
  Status PrepareJobDir(const std::string& job_dir);
  // Removes the job's private directories (ExecutorOptions::private_root) and unmounts its IPC
  // namespace (run/local/ipc_namespace.h), once it has ended.
  void RemovePrivateDirs(std::string_view project, std::string_view job_id) const;
  // At recovery, once the running jobs are adopted: RemovePrivateDirs for every job that has
  // private directories and runs no more (a server killed between a job's end and their removal
  // left them, with the job's IPC namespace mounted).
  void RemoveStalePrivateDirs() const;
  // What the replicas of `run` see of the server's files (executor_view.cc).
  run::FileView ReplicaView(const Run& run, const model::TrainingInput& input,
                            const JobLayout& layout) const override;
  // The interpreter for the job's pythonVersion (options_.python_by_version, else python).
  std::string PythonFor(const model::TrainingInput& input) const;
  void BeginStop(Run& run, model::JobState outcome, std::string message) override;
  // RUNNING -> CANCELLING (maxRunningTime); the stop itself is the caller's.
  void MarkCancelling(const std::string& project, const std::string& job_id) override;
  void CheckRun(Run& run);
  bool FinishIfStopped(Run& run) override;
  void ScheduleQueue();
  // The queue's pass: control/reconcile/queue.h decides, this applies (executor_queue.cc).
  void StartQueued(PlaceJob& start, WallTime now);
  // Writes `change` to a job that is still in `state` (nothing when it no longer is, or when the
  // change changes nothing); a failed write is warned about, and the next pass, which derives
  // what to do from the store again, tries again. Returns the job as stored afterwards, or
  // nullopt when the write failed.
  std::optional<model::Job> WriteIf(model::JobState state, const std::string& project,
                                    const std::string& job_id, std::string_view what,
                                    const std::function<void(model::Job&)>& change);
  // Kills what is left of a job nobody runs, then writes where it goes (reconcile/queue.h).
  void EndOrphaned(const EndOrphan& orphan);
  // A PREPARING job ends in `outcome` now, saying `message` (its staging is dropped).
  // Returns whether it was written (or the job was no longer PREPARING).
  bool EndPreparing(const std::string& project, const std::string& job_id, model::JobState outcome,
                    const std::string& message);
  // A staged run goes on as its job (as stored) says: fails with the staging's error, or
  // launches.
  void ProceedStaged(Run& run, model::Job job);
  // The run's staging is not wanted: stopped if still running (its report drops the run), else
  // the run is dropped now.
  void DropStaging(Run& run);
  // Warns (Warn) about a write the store refused; NOT_FOUND (the job was deleted) is no failure.
  void WarnIfRefused(const Result<model::Job>& written, const std::string& project,
                     const std::string& job_id, std::string_view what);
  // Tells the operator (ExecutorOptions::warn) about something the loop could not do and will
  // try again; the same message at most once a minute.
  void Warn(const std::string& message);
  Result<model::Job> Transition(const std::string& project, const std::string& job_id,
                                const std::function<bool(model::Job&)>& change);
  std::vector<sched::Allocation> RunningAllocations() const;
  // Adds what `running` held since the last call to each project's recent use (usage_), which
  // halves every day, and writes it to the usage store when that is due (or `force`d and
  // anything was counted since the last write). A failed write is warned about and tried again.
  void CountUsage(const std::vector<sched::Allocation>& running, WallTime now, bool force = false);
  // Start(): takes back the usage a previous server wrote (sched::RestoreUsage).
  void RestoreUsage();
  WallTime Now() const override;
  // When `run` ended: the latest end of its replicas (as their exit files record it, else when
  // their exits were handled), no later than now; now when none has ended.
  WallTime EndOf(const Run& run) const;

  JobController& controller_;
  const store::JobStore& store_;
  const catalog::Catalog& catalog_;
  const Clock& clock_;
  run::Launcher& launcher_;
  run::Stager& stager_;
  ExecutorOptions options_;
  AsyncRunner run_async_;
  std::unique_ptr<Backend> local_;  // the local backend, when options_.backend is null
  Backend* backend_ = nullptr;      // options_.backend, else local_

  // Loop-owned state (only the loop thread, or RunOnce's caller, touches it).
  std::map<std::string, std::unique_ptr<Run>> runs_;       // by Run::key
  std::map<std::string, std::unique_ptr<Study>> studies_;  // by "project/jobId"
  // The stop of each staging running on a worker, by its run's or study's key, until it reports:
  // requested when its job no longer wants it (cancelled, suspended, deleted) or on Stop().
  std::map<std::string, std::stop_source> staging_;
  std::map<std::string, MonoTime, std::less<>> warned_;  // Warn's messages, when last said
  // Recover() has taken over what a previous server left: from then on a job PREPARING, RUNNING
  // or CANCELLING that no run or study holds is an orphan (reconcile/queue.h). Until then the
  // queue places nothing, and each scan tries Recover() again.
  bool recovered_ = false;
  MonoTime next_queue_scan_{};
  // Each project's recent use of the inventory's devices, in seconds of all of them, for the
  // fair-share order (sched::ShareInput::usage); kept in options_.usage_store.
  sched::RecentUsage usage_;
  bool usage_unwritten_ = false;                 // device-time was counted since the last write
  std::optional<WallTime> usage_write_attempt_;  // the last write tried

  // Shared with other threads.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Event> events_;                                              // guarded by mu_
  std::map<std::string, std::vector<ReplicaInfo>, std::less<>> replicas_;  // guarded by mu_
  std::vector<QueuedInfo> queue_;                                          // guarded by mu_
  SharingPolicyPtr sharing_ = std::make_shared<sched::SharingPolicy>();    // guarded by mu_
  std::map<std::string, sched::Amounts, std::less<>> use_;                 // guarded by mu_
  bool woken_ = false;                                                     // guarded by mu_
  bool stopping_ = false;                                                  // guarded by mu_
  bool stopped_ = false;  // guarded by mu_: Stop() ran
  // Staging threads; finished ones are joined by the next pass of the loop.
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Worker> workers_;  // guarded by mu_
  std::thread loop_;
};

}  // namespace trainyard::control
