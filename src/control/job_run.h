// A job (or a tuning trial) the executor runs, as the executor and its backend (control/backend.h)
// both see it: its replicas, their processes' states and the stop under way. The loop thread
// owns it; the executor applies the exit rules to it, the backend starts, signals and observes
// its replicas (a cluster backend keeps what it needs of its own by the run's key).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/exit_status.h"
#include "base/status.h"
#include "model/job.h"
#include "model/job_extras.h"
#include "plan/replicas.h"
#include "run/launcher.h"
#include "sched/placement.h"
#include "tuning/metric_file.h"

namespace trainyard::control {

struct JobRun {
  // Each run goes forward through these, skipping some (a staging dropped is kDone at once).
  enum class Phase {
    kStaging,   // PREPARING: packages being installed
    kRunning,   // replicas started (RUNNING)
    kStopping,  // replicas being stopped; the outcome is written once all have exited
    // Every replica ended: their groups were killed and the outcome said in the service log;
    // the store may still refuse the outcome for a while (a full disk), and is asked again.
    kFinishing,
    kDone,  // to be removed by the loop
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

  // kStopping or kFinishing: its replicas are stopped or ended, its outcome not yet written.
  bool Stopping() const { return phase == Phase::kStopping || phase == Phase::kFinishing; }
  bool Done() const { return phase == Phase::kDone; }
};

}  // namespace trainyard::control
