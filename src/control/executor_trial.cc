// The executor's hyperparameter-tuning trials (reference §9): each a Run of the job's whole
// cluster, with `--name=value` flags, CLOUD_ML_TRIAL_ID and a CLOUD_ML_HP_METRIC_FILE per replica,
// at the point the study's suggester gives; their metric reports are read, unpromising trials
// are stopped by the median rule when asked to, and every trial is recorded in
// trainingOutput.trials.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "base/file.h"
#include "control/executor.h"
#include "control/executor_run.h"
#include "control/job_layout.h"
#include "control/study_output.h"
#include "tuning/early_stopping.h"
#include "tuning/study_policy.h"

namespace trainyard::control {

bool Executor::StartTrial(Study& study, sched::Allocation allocation) {
  if (study.ending || study.done || !study.staged) {
    return false;
  }
  Result<model::Job> job = store_.Get(study.project, study.job_id);
  if (!job.ok() ||
      (job->state != model::JobState::kPreparing && job->state != model::JobState::kRunning)) {
    return false;
  }
  std::vector<model::HyperparameterOutput> trials = study.prior;
  if (job->training_output) {
    trials.insert(trials.end(), job->training_output->trials.begin(),
                  job->training_output->trials.end());
  }
  Result<std::vector<tuning::Assignment>> next =
      study.suggester->Suggest(tuning::HistoryOf(*study.space, trials), 1);
  if (!next.ok()) {
    study.ending = true;
    study.outcome = model::JobState::kFailed;
    study.message =
        "The hyperparameter search could not suggest a trial: " + next.status().message();
    return false;
  }
  if (next->empty()) {
    study.exhausted = true;
    return false;
  }
  auto run = std::make_unique<Run>();
  run->trial_id = std::to_string(tuning::NextTrialId(trials));
  run->key = study.key + "/trial-" + run->trial_id;
  run->project = study.project;
  run->job_id = study.job_id;
  // A conditional study's trial gets its active parameters only.
  for (const tuning::ParameterValue& value : study.space->Restrict(next->front())) {
    run->hyperparameters.emplace_back(value.name, value.Text());
  }
  allocation.key = run->key;
  run->allocation = std::move(allocation);
  for (const plan::ReplicaShape& shape : study.shapes) {
    run->replicas.push_back(Run::Replica{.shape = shape});
  }
  const WallTime now = Now();
  const std::string tag = tuning::MetricTagOf(study.spec);
  Result<model::Job> recorded = Transition(study.project, study.job_id, [&](model::Job& current) {
    if (current.state != model::JobState::kPreparing &&
        current.state != model::JobState::kRunning) {
      return false;
    }
    current.state = model::JobState::kRunning;
    if (!current.start_time) {
      current.start_time = now;
    }
    model::TrainingOutput& output = TuningOutput(current, tag);
    model::HyperparameterOutput trial;
    trial.trial_id = run->trial_id;
    trial.hyperparameters.insert(run->hyperparameters.begin(), run->hyperparameters.end());
    trial.start_time = now;
    trial.state = model::JobState::kRunning;
    output.trials.push_back(std::move(trial));
    return true;
  });
  if (!recorded.ok() || FindTrial(*recorded, run->trial_id) == nullptr) {
    return false;
  }
  SayTo(study.project, study.job_id, "", false,
        fmt::format("Trial {} started with {}.", run->trial_id, ParamsText(run->hyperparameters)));
  Run& started = *run;
  runs_[started.key] = std::move(run);
  Launch(started);
  return true;
}

void Executor::ReadTrialMetrics(Run& run, const std::string& tag) {
  const auto master = std::find_if(run.replicas.begin(), run.replicas.end(), [](const auto& r) {
    return r.shape.role == plan::Role::kMaster;
  });
  if (master == run.replicas.end()) {
    return;
  }
  const JobLayout layout(options_.data_dir, run.project, run.job_id, run.trial_id);
  const std::optional<std::string> text =
      ReadFileText(layout.metrics_dir() + "/" + master->shape.task_name + ".metrics");
  if (!text) {
    return;
  }
  const std::vector<tuning::MetricPoint> fresh = tuning::ParseMetricFile(*text, tag);
  tuning::MergeMetricPoints(run.metrics, fresh);
}

bool Executor::ShouldStopTrial(const Run& run) const {
  const auto found = studies_.find(run.project + "/" + run.job_id);
  if (found == studies_.end() || !found->second->spec.enable_trial_early_stopping) {
    return false;
  }
  const Study& study = *found->second;
  return tuning::ShouldStopEarly(run.metrics, study.curves, study.spec.goal);
}

void Executor::FinishTrial(Run& run, double ml_units) {
  Study* study = StudyOf(run);
  const std::string tag =
      study ? tuning::MetricTagOf(study->spec) : std::string(tuning::kDefaultMetricTag);
  ReadTrialMetrics(run, tag);
  const std::optional<tuning::MetricPoint> last =
      study != nullptr && study->best_measurement
          ? tuning::BestMetric(run.metrics, study->spec.goal)
          : tuning::LatestMetric(run.metrics);
  const bool measured = run.outcome == model::JobState::kSucceeded && last.has_value();
  const WallTime now = Now();
  const Result<model::Job> written = Transition(run.project, run.job_id, [&](model::Job& current) {
    model::HyperparameterOutput* trial = FindTrial(current, run.trial_id);
    if (model::IsTerminal(current.state) || trial == nullptr ||
        trial->state != model::JobState::kRunning) {
      return false;
    }
    trial->state = run.outcome;
    trial->end_time = now;
    trial->is_trial_stopped_early = run.stopped_early;
    trial->all_metrics.clear();
    const std::size_t skip =
        run.metrics.size() > kKeptMetrics ? run.metrics.size() - kKeptMetrics : std::size_t{0};
    for (std::size_t i = skip; i < run.metrics.size(); ++i) {
      trial->all_metrics.push_back(
          {.training_step = run.metrics[i].step, .objective_value = run.metrics[i].value});
    }
    if (measured) {
      trial->final_metric =
          model::HyperparameterMetric{.training_step = last->step, .objective_value = last->value};
    }
    model::TrainingOutput& output = *current.training_output;
    output.consumed_ml_units = std::round((output.consumed_ml_units + ml_units) * 100) / 100;
    output.completed_trial_count =
        std::count_if(output.trials.begin(), output.trials.end(),
                      [](const auto& t) { return t.state == model::JobState::kSucceeded; });
    return true;
  });
  (void)written;
  const std::string metric =
      last ? fmt::format("{} = {} at step {}", tag, last->value, last->step) : std::string();
  std::string summary;
  if (run.outcome == model::JobState::kFailed) {
    Say(run, true, "Trial failed. " + run.message);
    summary = fmt::format("Trial {} failed: {}", run.trial_id, run.message);
    if (study != nullptr) {
      study->last_failure = fmt::format("trial {}: {}", run.trial_id, run.message);
    }
  } else if (run.outcome == model::JobState::kCancelled) {
    Say(run, false, "Trial was cancelled.");
    summary = fmt::format("Trial {} was cancelled.", run.trial_id);
  } else if (!last) {
    Say(run, true,
        fmt::format("Trial completed without reporting the metric {}; it is not an observation "
                    "for the search.",
                    tag));
    summary = fmt::format("Trial {} completed without reporting the metric {}.", run.trial_id, tag);
  } else if (run.stopped_early) {
    Say(run, false, "Trial stopped early by the median stopping rule: " + metric + ".");
    summary = fmt::format("Trial {} stopped early by the median stopping rule: {}.", run.trial_id,
                          metric);
  } else {
    Say(run, false, "Trial completed successfully: " + metric + ".");
    summary = fmt::format("Trial {} completed: {}.", run.trial_id, metric);
  }
  SayTo(run.project, run.job_id, "", run.outcome == model::JobState::kFailed, summary);
  if (study != nullptr && measured) {
    study->curves.push_back(run.metrics);
  }
}

}  // namespace trainyard::control
