// The executor's hyperparameter-tuning trials (docs/reference/ai-platform-training.md §9): each a
// Run of the job's whole cluster, with `--name=value` flags, CLOUD_ML_TRIAL_ID and a
// CLOUD_ML_HP_METRIC_FILE per replica, at the point the study's suggester gives; their metric
// reports are read, unpromising trials are stopped by the median rule when asked to, and every
// trial is recorded in trainingOutput.trials.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "control/executor.h"
#include "control/executor_run.h"
#include "control/job_layout.h"
#include "control/study_output.h"
#include "os/no_follow.h"
#include "tuning/early_stopping.h"
#include "tuning/study_policy.h"

namespace trainyard::control {
namespace {

// The hypertune library keeps the last 100 reports in its metrics file (python/hypertune): a few
// KiB. A file far larger than that is not one the library wrote, and is not read.
constexpr std::size_t kMaxMetricFileBytes = std::size_t{1} << 20;

}  // namespace

bool Executor::StartTrial(Study& study, sched::Allocation allocation) {
  if (study.end || study.phase != Study::Phase::kTrials) {
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
  static const std::vector<model::TrialMeasurement> kNoMeasurements;
  Result<std::vector<tuning::Assignment>> next = study.suggester->Suggest(
      tuning::HistoryOf(*study.space, trials,
                        job->extras ? job->extras->trial_measurements : kNoMeasurements),
      1);
  if (!next.ok()) {
    study.end = Study::End{.outcome = model::JobState::kFailed,
                           .message = "The hyperparameter search could not suggest a trial: " +
                                      next.status().message()};
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

void Executor::ReadTrialMetrics(Run& run, const Study* study) {
  const auto master = std::find_if(run.replicas.begin(), run.replicas.end(), [](const auto& r) {
    return r.shape.role == plan::Role::kMaster;
  });
  if (master == run.replicas.end()) {
    return;
  }
  const JobLayout layout(options_.data_dir, run.project, run.job_id, run.trial_id);
  // The replica writes it, so it is read as a job's file: no link followed, a regular file of a
  // bounded size (os/no_follow.h).
  const std::optional<std::string> text = os::ReadRegularFile(
      layout.metrics_dir() + "/" + master->shape.task_name + ".metrics", kMaxMetricFileBytes);
  if (!text) {
    return;
  }
  const std::string tag =
      study ? tuning::MetricTagOf(study->spec) : std::string(tuning::kDefaultMetricTag);
  tuning::MergeMetricPoints(run.metrics, tuning::ParseMetricFile(*text, tag));
  if (study == nullptr) {
    return;
  }
  run.extra_metrics.resize(study->extra_metrics.size());
  for (std::size_t i = 0; i < study->extra_metrics.size(); ++i) {
    tuning::MergeMetricPoints(run.extra_metrics[i],
                              tuning::ParseMetricFile(*text, study->extra_metrics[i].id));
  }
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
  ReadTrialMetrics(run, study);
  // Every metric of the study: the first (the trial's finalMetric), then a multi-objective
  // study's others; the trial is an observation only when it reported all of them.
  std::vector<std::string> tags = {study ? tuning::MetricTagOf(study->spec)
                                         : std::string(tuning::kDefaultMetricTag)};
  std::vector<model::GoalType> goals = {study ? study->spec.goal : model::GoalType::kUnspecified};
  std::vector<std::vector<tuning::MetricPoint>> curves = {run.metrics};
  for (std::size_t i = 0; study != nullptr && i < study->extra_metrics.size(); ++i) {
    tags.push_back(study->extra_metrics[i].id);
    goals.push_back(study->extra_metrics[i].goal);
    curves.push_back(i < run.extra_metrics.size() ? run.extra_metrics[i]
                                                  : std::vector<tuning::MetricPoint>());
  }
  const std::vector<std::optional<tuning::MetricPoint>> finals =
      tuning::FinalMetrics(curves, goals, study != nullptr && study->best_measurement);
  std::vector<std::string> missing;
  std::string metric;                // "acc = 0.9 at step 3, loss = 0.2 at step 3"
  std::vector<double> extra_values;  // the other metrics' final values
  for (std::size_t i = 0; i < finals.size(); ++i) {
    if (!finals[i]) {
      missing.push_back(tags[i]);
      continue;
    }
    metric += fmt::format("{}{} = {} at step {}", metric.empty() ? "" : ", ", tags[i],
                          finals[i]->value, finals[i]->step);
    if (i > 0) {
      extra_values.push_back(finals[i]->value);
    }
  }
  const std::optional<tuning::MetricPoint>& last = finals.front();
  const bool measured = run.outcome == model::JobState::kSucceeded && missing.empty();
  const WallTime end = EndOf(run);
  const Result<model::Job> written = Transition(run.project, run.job_id, [&](model::Job& current) {
    model::HyperparameterOutput* trial = FindTrial(current, run.trial_id);
    if (model::IsTerminal(current.state) || trial == nullptr ||
        trial->state != model::JobState::kRunning) {
      return false;
    }
    trial->state = run.outcome;
    trial->end_time = trial->start_time ? std::max(end, *trial->start_time) : end;
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
    if (measured && !extra_values.empty() && current.extras) {
      std::erase_if(current.extras->trial_measurements,
                    [&](const auto& m) { return m.trial_id == run.trial_id; });
      current.extras->trial_measurements.push_back(
          {.trial_id = run.trial_id, .values = extra_values});
    }
    model::TrainingOutput& output = *current.training_output;
    output.consumed_ml_units = std::round((output.consumed_ml_units + ml_units) * 100) / 100;
    output.completed_trial_count =
        std::count_if(output.trials.begin(), output.trials.end(),
                      [](const auto& t) { return t.state == model::JobState::kSucceeded; });
    return true;
  });
  WarnIfRefused(written, run.project, run.job_id, "trial " + run.trial_id + " ended");
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
  } else if (!missing.empty()) {
    const std::string what =
        fmt::format("the metric{} {}", missing.size() == 1 ? "" : "s", fmt::join(missing, ", "));
    Say(run, true,
        fmt::format("Trial completed without reporting {}; it is not an observation for the "
                    "search.",
                    what));
    summary = fmt::format("Trial {} completed without reporting {}.", run.trial_id, what);
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
