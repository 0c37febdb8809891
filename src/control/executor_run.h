// Internal to control/: the executor's record of one job it is running, and its events.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/clock.h"
#include "control/executor.h"
#include "control/reconcile/job_limits.h"
#include "control/run_record.h"
#include "model/job.h"
#include "plan/cluster_plan.h"
#include "plan/replicas.h"
#include "run/launcher.h"
#include "sched/placement.h"
#include "tuning/conditional_space.h"
#include "tuning/metric_file.h"
#include "tuning/suggest.h"

namespace trainyard::control {

struct ExitEvent {
  int pid = 0;
  ExitStatus status;
};

struct StagedEvent {
  std::string key;
  Status status;
};

struct Executor::Event : std::variant<ExitEvent, StagedEvent> {
  using variant::variant;
};

struct Executor::Run {
  enum class Phase {
    kStaging,   // PREPARING: packages being installed
    kRunning,   // replicas started (RUNNING)
    kStopping,  // replicas being stopped; the outcome is written once all have exited
  };

  struct Replica {
    plan::ReplicaShape shape;
    run::ProcessSpec spec;
    int pid = 0;
    bool alive = false;
    int restarts = 0;
    std::optional<MonoTime> restart_at;
    MonoTime started{};
    WallTime started_wall{};
    // When its last start ended: as its exit file records it (it may have ended while no server
    // ran), else when the exit was handled. Unset until it has ended once.
    std::optional<WallTime> ended_wall;
    double seconds = 0;  // machine time so far, over every start, up to each one's end
    std::optional<ExitStatus> last_exit;
  };

  // A restart of every replica (ExitDecision::kRestartJob): they are stopped, then all started
  // again once every one has ended and `at` has come.
  struct JobRestart {
    MonoTime at{};
    MonoTime stop_started{};
    bool killed = false;  // SIGKILL sent to the replicas that outlived the grace period
  };

  std::string key;  // "project/jobId", or "project/jobId/trial-<n>" for a tuning trial
  std::string project;
  std::string job_id;
  std::string trial_id;  // "" unless a tuning trial ("1", "2", …)
  // A trial's parameters as its `hyperparameters` map and `--name=value` flags show them.
  std::vector<std::pair<std::string, std::string>> hyperparameters;
  // A trial's metric reports so far (its master's CLOUD_ML_HP_METRIC_FILE), every one seen.
  std::vector<tuning::MetricPoint> metrics;
  // A multi-objective study's other metrics' reports, parallel to Study::extra_metrics.
  std::vector<std::vector<tuning::MetricPoint>> extra_metrics;
  MonoTime next_metrics_read{};
  bool stopped_early = false;
  Phase phase = Phase::kStaging;
  sched::Allocation allocation;
  std::vector<Replica> replicas;  // parallel to the job's ReplicaShapes
  // The job's extras as when it launched (its exit rules: control/reconcile/replica_policy.h).
  std::optional<model::JobExtras> extras;
  int restarts = 0;  // every restart of the run so far; a whole-cluster one counts once
  std::optional<JobRestart> job_restart;

  // The staging's result, once it has reported; the next pass goes on from it (a report that
  // came while the job could not be read is not lost).
  std::optional<Status> staged;

  // Set by BeginStop.
  model::JobState outcome = model::JobState::kUnspecified;
  std::string message;
  bool write_outcome = true;  // false when the job already reached a terminal state elsewhere
  MonoTime stop_started{};
  bool killed = false;  // SIGKILL sent
  // Set once every replica ended: their groups were killed and the outcome said in the service
  // log; the store may still refuse the outcome for a while (a full disk), and is asked again.
  bool finishing = false;

  bool done = false;  // to be removed by the loop

  // Set when a cluster manager runs the job (executor_batch.cc): its replicas are the manager
  // job's tasks (pid 0 here), whose ends are their exit files.
  struct Batch {
    std::string id;                         // the manager's job id
    int first_port = 0;                     // task i listens on first_port + i
    bool running = false;                   // the manager has started it
    std::string reason;                     // the last pending reason said in the service log
    std::optional<MonoTime> finished_seen;  // the manager says it ended; exit files awaited
    MonoTime cancelled_at{};
    bool cancel_sent = false;
  };
  std::optional<Batch> batch;
};

// A hyperparameter-tuning job the executor runs (executor_study.cc; its trials executor_trial.cc):
// its packages are staged once, then trials, each a Run of the job's whole cluster, start as
// DecideStudy allows and placement finds room; the job's outcome is written when its last trial
// run is gone.
struct Executor::Study {
  std::string key;  // "project/jobId"
  std::string project;
  std::string job_id;
  model::HyperparameterSpec spec;
  bool best_measurement = false;                  // a trial's final metric is its best (extras)
  std::vector<model::StudyMetric> extra_metrics;  // a multi-objective study's after the first
  std::vector<plan::ReplicaShape> shapes;         // every trial's cluster
  sched::JobDemand demand;                        // one trial's demand (key: the job's)
  std::unique_ptr<tuning::Suggester> suggester;
  std::optional<tuning::ConditionalSpace> space;
  std::vector<model::HyperparameterOutput> prior;  // the resumed job's trials
  // Completed trials' metric curves, the median stopping rule's reference.
  std::vector<std::vector<tuning::MetricPoint>> curves;

  bool staged = false;
  std::optional<sched::Allocation> pending;  // the first trial's room, held while staging
  bool exhausted = false;                    // the suggester has no new point
  int wanted = 0;                            // trials to place in the next queue scan
  std::string last_failure;                  // "trial 3: <its message>"

  // Set once the study's end is decided; its running trials are stopped, then it is written.
  bool ending = false;
  model::JobState outcome = model::JobState::kUnspecified;
  std::string message;

  bool done = false;  // to be removed by the loop
};

}  // namespace trainyard::control
