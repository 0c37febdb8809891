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
#include "control/job_run.h"
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

  // kStaging until its packages' staging reports, then trials start; kDone: to be removed by
  // the loop.
  enum class Phase { kStaging, kTrials, kDone };
  Phase phase = Phase::kStaging;
  std::optional<sched::Allocation> pending;  // the first trial's room, held while staging
  bool exhausted = false;                    // the suggester has no new point
  int wanted = 0;                            // trials to place in the next queue scan
  std::string last_failure;                  // "trial 3: <its message>"

  // The study's end, once decided (in any phase): its running trials are stopped, then it is
  // written. An end written elsewhere (a cancel while PREPARING) has no outcome of its own.
  struct End {
    model::JobState outcome = model::JobState::kUnspecified;
    std::string message;
  };
  std::optional<End> end;
};

}  // namespace trainyard::control
