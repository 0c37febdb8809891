// The executor's hyperparameter-tuning jobs (docs/reference/ai-platform-training.md §9), the study
// loop: a study stages the job's packages once, then starts trials (executor_trial.cc) as
// tuning::DecideStudy allows and placement finds room, and writes the job's outcome when its last
// trial run is gone; after a server restart it takes over the trials still running.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "control/executor.h"
#include "control/executor_run.h"
#include "control/job_layout.h"
#include "control/study_output.h"
#include "tuning/conditional_suggester.h"
#include "tuning/study_policy.h"

namespace trainyard::control {
namespace {

constexpr std::string_view kRestartedTrial =
    "The trainyard server restarted while the trial was running; its replicas were stopped.";

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
  if (job.extras.has_value()) {
    study->extra_metrics = job.extras->extra_metrics;
  }
  auto fail = [&](std::string message) {
    study->end = Study::End{.outcome = model::JobState::kFailed, .message = std::move(message)};
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
  std::vector<model::GoalType> extra_goals;
  for (const model::StudyMetric& metric : study->extra_metrics) {
    extra_goals.push_back(metric.goal);
  }
  Result<std::unique_ptr<tuning::Suggester>> suggester =
      tuning::MakeStudySuggester(*space, study->spec.algorithm, study->spec.goal,
                                 tuning::StudySeed(study->project, study->job_id), extra_goals);
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
  if (!study->end) {
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

bool Executor::CheckStudies() {
  bool wants_more = false;
  for (auto it = studies_.begin(); it != studies_.end();) {
    wants_more |= CheckStudy(*it->second);
    if (it->second->phase != Study::Phase::kDone) {
      ++it;
      continue;
    }
    stager_.Release(
        JobLayout(options_.data_dir, it->second->project, it->second->job_id).packages_dir());
    RemovePrivateDirs(it->second->project, it->second->job_id);
    it = studies_.erase(it);
  }
  return wants_more;
}

bool Executor::CheckStudy(Study& study) {
  const int wanted_before = std::exchange(study.wanted, 0);
  Result<model::Job> job = store_.Get(study.project, study.job_id);
  if (!job.ok()) {
    if (job.status().code() == Code::kNotFound && TrialRunsOf(study) == 0) {
      study.phase = Study::Phase::kDone;
    }
    return false;  // a store error: try again on the next pass
  }
  if (model::IsTerminal(job->state)) {  // written elsewhere (a cancel while PREPARING)
    if (!study.end) {
      study.end = Study::End{};
    }
    if (TrialRunsOf(study) == 0) {
      study.phase = Study::Phase::kDone;
    }
    return false;
  }
  if (study.phase == Study::Phase::kStaging) {
    if (job->state != model::JobState::kPreparing) {
      study.phase = Study::Phase::kDone;
      return false;
    }
    if (PastMaxWaitTime(*job, Now())) {
      EndPreparing(study.project, study.job_id, model::JobState::kCancelled,
                   std::string(MaxWaitTimeMessage()));
      study.phase = Study::Phase::kDone;
    }
    return false;
  }
  if (!study.end && job->state == model::JobState::kRunning) {
    if (PastMaxRunningTime(*job, Now())) {
      MarkCancelling(study.project, study.job_id);
      study.end = Study::End{.outcome = model::JobState::kCancelled,
                             .message = std::string(MaxRunningTimeMessage())};
    }
  }
  if (!study.end && job->state == model::JobState::kCancelling) {
    study.end = Study::End{.outcome = model::JobState::kCancelled,
                           .message = std::string(CancelledMessage())};
  }
  if (!study.end) {
    const std::vector<model::HyperparameterOutput> none;
    const tuning::StudyDecision decision =
        tuning::DecideStudy(study.spec, job->training_output ? job->training_output->trials : none,
                            study.exhausted, study.last_failure);
    if (decision.finished || decision.stop_running) {
      study.end = Study::End{.outcome = decision.outcome, .message = decision.message};
    } else {
      study.wanted = decision.start;
    }
  }
  if (study.end && TrialRunsOf(study) == 0) {
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
  const Study::End end = study.end.value_or(Study::End{});
  const WallTime now = Now();
  const std::string tag = tuning::MetricTagOf(study.spec);
  const Result<model::Job> written =
      Transition(study.project, study.job_id, [&](model::Job& current) {
        if (model::IsTerminal(current.state)) {
          return false;
        }
        current.state = end.outcome;
        current.error_message =
            end.outcome == model::JobState::kSucceeded ? std::string() : end.message;
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
  if (written.ok() && written->state == end.outcome) {
    std::string closing = OutcomeMessage(end.outcome, end.message);
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
    closing += ParetoFrontText(*written);
    SayTo(study.project, study.job_id, "", end.outcome == model::JobState::kFailed, closing);
  }
  study.phase = Study::Phase::kDone;
}

void Executor::RecoverStudy(const std::string& project, const model::Job& job) {
  std::unique_ptr<Study> created = NewStudy(project, job);
  Study& study = *created;
  study.phase = Study::Phase::kTrials;
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
      backend_->KillRecorded(*record);
    }
    backend_->KillUnrecorded(job, layout);  // started, but killed before its pid was recorded
    const WallTime now = Now();
    WarnIfRefused(Transition(project, job.job_id,
                             [&](model::Job& current) {
                               model::HyperparameterOutput* lost =
                                   FindTrial(current, trial.trial_id);
                               if (lost == nullptr || lost->state != model::JobState::kRunning) {
                                 return false;
                               }
                               lost->state = model::JobState::kFailed;
                               lost->end_time = now;
                               return true;
                             }),
                  project, job.job_id, "trial " + trial.trial_id + " lost");
    study.last_failure = fmt::format("trial {}: {}", trial.trial_id, kRestartedTrial);
    SayTo(project, job.job_id, trial.trial_id, true, kRestartedTrial);
  }
  SayTo(project, job.job_id, "", false,
        fmt::format("The trainyard server restarted; it took over {} running trial{}.", adopted,
                    adopted == 1 ? "" : "s"));
}

}  // namespace trainyard::control
