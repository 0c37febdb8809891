#include "tuning/study_policy.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include <fmt/format.h>

namespace trainyard::tuning {
namespace {

constexpr std::string_view kResumeField = "trainingInput.hyperparameters.resumePreviousJobId";

std::optional<std::int64_t> TrialNumber(std::string_view id) {
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), number);
  if (error != std::errc() || end != id.data() + id.size() || number < 1) {
    return std::nullopt;
  }
  return number;
}

bool Better(double a, double b, model::GoalType goal) {
  return goal == model::GoalType::kMinimize ? a < b : a > b;
}

Status ResumeViolation(std::string description) {
  return Status::InvalidArgument(
      std::vector<FieldViolation>{{std::string(kResumeField), std::move(description)}});
}

}  // namespace

StudyLimits LimitsOf(const model::HyperparameterSpec& spec) {
  StudyLimits limits;
  limits.max_trials = std::max(1, spec.max_trials);
  limits.max_parallel_trials = std::min(limits.max_trials, std::max(1, spec.max_parallel_trials));
  limits.max_failed_trials =
      spec.max_failed_trials > 0 ? spec.max_failed_trials : (limits.max_trials + 1) / 2;
  return limits;
}

std::string MetricTagOf(const model::HyperparameterSpec& spec) {
  return spec.hyperparameter_metric_tag.empty() ? std::string(kDefaultMetricTag)
                                                : spec.hyperparameter_metric_tag;
}

StudyDecision DecideStudy(const model::HyperparameterSpec& spec,
                          std::span<const model::HyperparameterOutput> trials, bool exhausted,
                          std::string_view last_failure) {
  const StudyLimits limits = LimitsOf(spec);
  int running = 0;
  int failed = 0;
  int measured = 0;
  for (const model::HyperparameterOutput& trial : trials) {
    running += trial.state == model::JobState::kRunning ? 1 : 0;
    failed += trial.state == model::JobState::kFailed ? 1 : 0;
    measured += trial.final_metric ? 1 : 0;
  }
  const int started = static_cast<int>(trials.size());
  StudyDecision decision;
  if (failed >= limits.max_failed_trials) {
    decision.outcome = model::JobState::kFailed;
    decision.message = spec.max_failed_trials > 0
                           ? fmt::format("{} trial{} failed, which reaches maxFailedTrials ({}).",
                                         failed, failed == 1 ? "" : "s", limits.max_failed_trials)
                           : fmt::format(
                                 "{} trial{} failed, which reaches the limit trainyard sets when "
                                 "maxFailedTrials is 0 (half of maxTrials, rounded up: {}).",
                                 failed, failed == 1 ? "" : "s", limits.max_failed_trials);
    if (!last_failure.empty()) {
      decision.message += fmt::format(" The last failure: {}", last_failure);
    }
    decision.stop_running = running > 0;
    decision.finished = running == 0;
    return decision;
  }
  if (started < limits.max_trials && !exhausted) {
    decision.start =
        std::max(0, std::min(limits.max_parallel_trials - running, limits.max_trials - started));
    return decision;
  }
  if (running > 0) {
    return decision;
  }
  decision.finished = true;
  if (measured > 0) {
    decision.outcome = model::JobState::kSucceeded;
  } else {
    decision.outcome = model::JobState::kFailed;
    decision.message = fmt::format(
        "No trial reported the hyperparameter metric {}: report it with "
        "hypertune.HyperTune().report_hyperparameter_tuning_metric(hyperparameter_metric_tag="
        "'{}', metric_value=…), which writes the file CLOUD_ML_HP_METRIC_FILE names.",
        MetricTagOf(spec), MetricTagOf(spec));
  }
  return decision;
}

StudyHistory HistoryOf(const ConditionalSpace& space,
                       std::span<const model::HyperparameterOutput> trials,
                       std::span<const model::TrialMeasurement> measurements) {
  StudyHistory history;
  for (const model::HyperparameterOutput& trial : trials) {
    const std::vector<std::pair<std::string, std::string>> values(trial.hyperparameters.begin(),
                                                                  trial.hyperparameters.end());
    Result<Assignment> params = space.Parse(values);
    if (!params.ok()) {
      continue;
    }
    if (trial.final_metric) {
      Observation observation{.params = std::move(*params),
                              .objective = trial.final_metric->objective_value};
      if (const auto measured =
              std::ranges::find(measurements, trial.trial_id, &model::TrialMeasurement::trial_id);
          measured != measurements.end()) {
        observation.more = measured->values;
      }
      history.completed.push_back(std::move(observation));
    } else {
      history.running.push_back(std::move(*params));
    }
  }
  return history;
}

std::int64_t NextTrialId(std::span<const model::HyperparameterOutput> trials) {
  std::int64_t next = 1;
  for (const model::HyperparameterOutput& trial : trials) {
    if (std::optional<std::int64_t> number = TrialNumber(trial.trial_id)) {
      next = std::max(next, *number + 1);
    }
  }
  return next;
}

Status CheckResumable(const model::HyperparameterSpec& spec, const model::Job& previous) {
  const std::string& id = spec.resume_previous_job_id;
  if (!previous.training_input || !previous.training_input->hyperparameters) {
    return ResumeViolation(fmt::format(
        "Job {} is not a hyperparameter tuning job, so there is no study to resume.", id));
  }
  if (!model::IsTerminal(previous.state)) {
    return Status::FailedPrecondition(
        fmt::format("Job {} is {}: a study can be resumed once its job has finished.", id,
                    model::JobStateName(previous.state)));
  }
  const std::vector<model::ParameterSpec>& before =
      previous.training_input->hyperparameters->params;
  for (const model::ParameterSpec& param : spec.params) {
    const auto same = std::find_if(before.begin(), before.end(), [&](const auto& old) {
      return old.parameter_name == param.parameter_name;
    });
    if (same == before.end()) {
      return ResumeViolation(
          fmt::format("Job {} has no parameter {}: a resumed study must tune the same parameters.",
                      id, param.parameter_name));
    }
    if (same->type != param.type) {
      return ResumeViolation(fmt::format("Parameter {} is {} in job {} but {} here.",
                                         param.parameter_name, model::ParameterTypeName(same->type),
                                         id, model::ParameterTypeName(param.type)));
    }
  }
  if (before.size() != spec.params.size()) {
    return ResumeViolation(fmt::format(
        "Job {} tunes {} parameters and this job {}: a resumed study must tune the same ones.", id,
        before.size(), spec.params.size()));
  }
  return Status();
}

void SortTrialsForOutput(std::vector<model::HyperparameterOutput>& trials, model::GoalType goal) {
  std::stable_sort(trials.begin(), trials.end(), [goal](const auto& a, const auto& b) {
    if (a.final_metric.has_value() != b.final_metric.has_value()) {
      return a.final_metric.has_value();
    }
    if (a.final_metric && a.final_metric->objective_value != b.final_metric->objective_value) {
      return Better(a.final_metric->objective_value, b.final_metric->objective_value, goal);
    }
    return TrialNumber(a.trial_id).value_or(0) < TrialNumber(b.trial_id).value_or(0);
  });
}

}  // namespace trainyard::tuning
