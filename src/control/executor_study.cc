// The executor's hyperparameter-tuning jobs (reference §9): a study stages the job's packages
// once, then runs trials (each a Run of the job's whole cluster, with `--name=value` flags,
// CLOUD_ML_TRIAL_ID and a CLOUD_ML_HP_METRIC_FILE per replica), as tuning::DecideStudy allows
// and placement finds room; it reads each trial's metric reports, stops unpromising trials by
// the median rule when asked to, records every trial in trainingOutput.trials, and writes the
// job's outcome when its last trial run is gone.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "base/file.h"
#include "control/executor.h"
#include "control/executor_run.h"
#include "control/job_layout.h"
#include "tuning/conditional_suggester.h"
#include "tuning/early_stopping.h"
#include "tuning/study_policy.h"

namespace trainyard::control {
namespace {

// Trial curves kept in allMetrics (the hypertune library keeps as many in its file).
constexpr std::size_t kKeptMetrics = 100;

constexpr std::string_view kRestartedTrial =
    "The trainyard server restarted while the trial was running; its replicas were stopped.";

// The suggester's seed: fixed per job, so a study is reproducible.
std::uint64_t SeedOf(std::string_view key) {
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a
  for (const char c : key) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  return hash;
}

std::vector<tuning::MetricPoint> CurveOf(const model::HyperparameterOutput& trial) {
  std::vector<tuning::MetricPoint> curve;
  for (const model::HyperparameterMetric& metric : trial.all_metrics) {
    curve.push_back({.step = metric.training_step,
                     .value = metric.objective_value,
                     .timestamp = static_cast<double>(curve.size())});
  }
  return curve;
}

model::HyperparameterOutput* FindTrial(model::Job& job, std::string_view trial_id) {
  if (!job.training_output) {
    return nullptr;
  }
  for (model::HyperparameterOutput& trial : job.training_output->trials) {
    if (trial.trial_id == trial_id) {
      return &trial;
    }
  }
  return nullptr;
}

// The job's trainingOutput, marked as a tuning job's.
model::TrainingOutput& TuningOutput(model::Job& job, const std::string& tag) {
  model::TrainingOutput& output =
      job.training_output ? *job.training_output : job.training_output.emplace();
  output.is_hyperparameter_tuning_job = true;
  output.hyperparameter_metric_tag = tag;
  return output;
}

std::string ParamsText(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string text;
  for (const auto& [name, value] : values) {
    text += fmt::format("{}{}={}", text.empty() ? "" : ", ", name, value);
  }
  return text;
}

}  // namespace

Executor::Study* Executor::StudyOf(const Run& run) {
  const auto found = studies_.find(run.project + "/" + run.job_id);
  return found == studies_.end() ? nullptr : found->second.get();
}

std::size_t Executor::TrialRunsOf(const Study& study) const {
  return static_cast<std::size_t>(std::count_if(runs_.begin(), runs_.end(), [&](const auto& entry) {
    const Run& run = *entry.second;
    return !run.trial_id.empty() && run.project == study.project && run.job_id == study.job_id;
  }));
}

std::unique_ptr<Executor::Study> Executor::NewStudy(const std::string& project,
                                                    const model::Job& job) {
  auto study = std::make_unique<Study>();
  study->key = project + "/" + job.job_id;
  study->project = project;
  study->job_id = job.job_id;
  study->spec = *job.training_input->hyperparameters;
  study->best_measurement = job.extras.has_value() && job.extras->best_measurement;
  auto fail = [&](std::string message) {
    study->ending = true;
    study->outcome = model::JobState::kFailed;
    study->message = std::move(message);
    return std::move(study);
  };
  Result<std::vector<plan::ReplicaShape>> shapes = plan::JobReplicas(job, catalog_);
  if (!shapes.ok()) {
    return fail(shapes.status().message());
  }
  Result<sched::JobDemand> demand = JobDemandOf(project, job, *shapes, catalog_);
  if (!demand.ok()) {
    return fail(demand.status().message());
  }
  study->shapes = std::move(*shapes);
  study->demand = std::move(*demand);
  static const std::vector<model::ParameterCondition> kNoConditions;
  Result<tuning::ConditionalSpace> space = tuning::ConditionalSpace::Make(
      study->spec, job.extras.has_value() ? job.extras->parameter_conditions : kNoConditions);
  if (!space.ok()) {
    return fail(space.status().message());
  }
  Result<std::unique_ptr<tuning::Suggester>> suggester = tuning::MakeStudySuggester(
      *space, study->spec.algorithm, study->spec.goal, SeedOf(study->key));
  if (!suggester.ok()) {
    return fail(suggester.status().message());
  }
  study->space = std::move(*space);
  study->suggester = std::move(*suggester);
  if (const std::string& previous_id = study->spec.resume_previous_job_id; !previous_id.empty()) {
    Result<model::Job> previous = store_.Get(project, previous_id);
    if (!previous.ok()) {
      return fail(fmt::format("The study of job {} (resumePreviousJobId) cannot be read: {}",
                              previous_id, previous.status().message()));
    }
    if (Status resumable = tuning::CheckResumable(study->spec, *previous); !resumable.ok()) {
      return fail(resumable.message());
    }
    if (previous->training_output) {
      study->prior = previous->training_output->trials;
    }
  }
  auto add_curves = [&](const std::vector<model::HyperparameterOutput>& trials) {
    for (const model::HyperparameterOutput& trial : trials) {
      if (trial.state == model::JobState::kSucceeded && trial.final_metric) {
        study->curves.push_back(CurveOf(trial));
      }
    }
  };
  add_curves(study->prior);
  if (job.training_output) {
    add_curves(job.training_output->trials);
  }
  return study;
}

void Executor::BeginStudy(const std::string& project, const model::Job& job,
                          sched::Allocation pending) {
  std::unique_ptr<Study> study = NewStudy(project, job);
  if (!study->ending) {
    study->pending = std::move(pending);
  }
  if (!study->prior.empty()) {
    SayTo(project, job.job_id, "", false,
          fmt::format("Resuming the study of job {}: its {} trial{} are prior observations.",
                      study->spec.resume_previous_job_id, study->prior.size(),
                      study->prior.size() == 1 ? "" : "s"));
  }
  const std::string key = study->key;
  studies_[key] = std::move(study);
}

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

bool Executor::CheckStudies() {
  bool wants_more = false;
  for (auto it = studies_.begin(); it != studies_.end();) {
    wants_more |= CheckStudy(*it->second);
    if (!it->second->done) {
      ++it;
      continue;
    }
    stager_.Release(
        JobLayout(options_.data_dir, it->second->project, it->second->job_id).packages_dir());
    it = studies_.erase(it);
  }
  return wants_more;
}

bool Executor::CheckStudy(Study& study) {
  const int wanted_before = std::exchange(study.wanted, 0);
  Result<model::Job> job = store_.Get(study.project, study.job_id);
  if (!job.ok()) {
    study.done = job.status().code() == Code::kNotFound && TrialRunsOf(study) == 0;
    return false;  // a store error: try again on the next pass
  }
  if (model::IsTerminal(job->state)) {  // written elsewhere (a cancel while PREPARING)
    study.ending = true;
    study.done = TrialRunsOf(study) == 0;
    return false;
  }
  if (!study.staged) {
    if (job->state != model::JobState::kPreparing) {
      study.done = true;
      return false;
    }
    if (auto wait = MaxWaitTime(*job);
        wait && job->create_time && Now() - *job->create_time > *wait) {
      const WallTime end = Now();
      (void)Transition(study.project, study.job_id, [&](model::Job& current) {
        if (current.state != model::JobState::kPreparing) {
          return false;
        }
        current.state = model::JobState::kCancelled;
        current.error_message = MaxWaitTimeMessage();
        current.end_time = end;
        return true;
      });
      study.done = true;
    }
    return false;
  }
  if (!study.ending && job->state == model::JobState::kRunning) {
    if (PastMaxRunningTime(*job, Now())) {
      MarkCancelling(study.project, study.job_id);
      study.ending = true;
      study.outcome = model::JobState::kCancelled;
      study.message = MaxRunningTimeMessage();
    }
  }
  if (!study.ending && job->state == model::JobState::kCancelling) {
    study.ending = true;
    study.outcome = model::JobState::kCancelled;
    study.message = CancelledMessage();
  }
  if (!study.ending) {
    const std::vector<model::HyperparameterOutput> none;
    const tuning::StudyDecision decision =
        tuning::DecideStudy(study.spec, job->training_output ? job->training_output->trials : none,
                            study.exhausted, study.last_failure);
    if (decision.finished || decision.stop_running) {
      study.ending = true;
      study.outcome = decision.outcome;
      study.message = decision.message;
    } else {
      study.wanted = decision.start;
    }
  }
  if (study.ending && TrialRunsOf(study) == 0) {
    FinishStudy(study);
  }
  return study.wanted > wanted_before;
}

std::vector<sched::JobDemand> Executor::TrialDemands() const {
  std::vector<sched::JobDemand> demands;
  for (const auto& [key, study] : studies_) {
    for (int i = 0; i < study->wanted; ++i) {
      sched::JobDemand demand = study->demand;
      demand.key = fmt::format("{}/next-{}", key, i);
      demands.push_back(std::move(demand));
    }
  }
  return demands;
}

void Executor::FinishStudy(Study& study) {
  const WallTime now = Now();
  const std::string tag = tuning::MetricTagOf(study.spec);
  const Result<model::Job> written =
      Transition(study.project, study.job_id, [&](model::Job& current) {
        if (model::IsTerminal(current.state)) {
          return false;
        }
        current.state = study.outcome;
        current.error_message =
            study.outcome == model::JobState::kSucceeded ? std::string() : study.message;
        current.end_time = now;
        current.job_position = 0;
        if (!current.start_time) {
          current.start_time = now;
        }
        model::TrainingOutput& output = TuningOutput(current, tag);
        for (model::HyperparameterOutput& trial : output.trials) {
          if (trial.state == model::JobState::kRunning) {  // never launched
            trial.state = model::JobState::kCancelled;
            trial.end_time = now;
          }
        }
        output.completed_trial_count =
            std::count_if(output.trials.begin(), output.trials.end(),
                          [](const auto& t) { return t.state == model::JobState::kSucceeded; });
        tuning::SortTrialsForOutput(output.trials, study.spec.goal);
        return true;
      });
  if (written.ok() && written->state == study.outcome) {
    std::string closing = OutcomeMessage(study.outcome, study.message);
    const auto& trials = written->training_output->trials;
    if (!trials.empty() && trials.front().final_metric) {
      const model::HyperparameterOutput& best = trials.front();
      std::vector<std::pair<std::string, std::string>> params;  // in the config's order
      for (const model::ParameterSpec& param : study.spec.params) {
        if (const auto value = best.hyperparameters.find(param.parameter_name);
            value != best.hyperparameters.end()) {
          params.emplace_back(*value);
        }
      }
      closing += fmt::format(" The best trial is {}: {} = {} ({}).", best.trial_id, tag,
                             best.final_metric->objective_value, ParamsText(params));
    }
    SayTo(study.project, study.job_id, "", study.outcome == model::JobState::kFailed, closing);
  }
  study.done = true;
}

void Executor::RecoverStudy(const std::string& project, const model::Job& job) {
  std::unique_ptr<Study> created = NewStudy(project, job);
  Study& study = *created;
  study.staged = true;
  studies_[study.key] = std::move(created);
  if (!job.training_output) {
    return;
  }
  int adopted = 0;
  for (const model::HyperparameterOutput& trial : job.training_output->trials) {
    if (trial.state != model::JobState::kRunning) {
      continue;
    }
    const JobLayout layout(options_.data_dir, project, job.job_id, trial.trial_id);
    Result<RunRecord> record = ReadRunRecord(layout.run_record());
    if (record.ok() && Adopt(project, job, *record, &trial)) {
      ++adopted;
      Run& run = *runs_.at(study.key + "/trial-" + trial.trial_id);
      run.metrics = CurveOf(trial);
      continue;
    }
    if (record.ok()) {
      KillRecorded(*record);
    }
    KillUnrecorded(job, layout);  // started, but killed before its pid was recorded
    const WallTime now = Now();
    (void)Transition(project, job.job_id, [&](model::Job& current) {
      model::HyperparameterOutput* lost = FindTrial(current, trial.trial_id);
      if (lost == nullptr || lost->state != model::JobState::kRunning) {
        return false;
      }
      lost->state = model::JobState::kFailed;
      lost->end_time = now;
      return true;
    });
    study.last_failure = fmt::format("trial {}: {}", trial.trial_id, kRestartedTrial);
    SayTo(project, job.job_id, trial.trial_id, true, kRestartedTrial);
  }
  SayTo(project, job.job_id, "", false,
        fmt::format("The trainyard server restarted; it took over {} running trial{}.", adopted,
                    adopted == 1 ? "" : "s"));
}

}  // namespace trainyard::control
