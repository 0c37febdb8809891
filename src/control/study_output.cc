#include "control/study_output.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuning/multi_objective.h"
#include "tuning/study_policy.h"

namespace trainyard::control {

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

model::TrainingOutput& TuningOutput(model::Job& job, const std::string& tag) {
  model::TrainingOutput& output =
      job.training_output ? *job.training_output : job.training_output.emplace();
  output.is_hyperparameter_tuning_job = true;
  output.hyperparameter_metric_tag = tag;
  return output;
}

std::string ParetoFrontText(const model::Job& job) {
  if (!job.extras || job.extras->extra_metrics.empty() || !job.training_output ||
      !job.training_input || !job.training_input->hyperparameters) {
    return "";
  }
  const model::HyperparameterSpec& spec = *job.training_input->hyperparameters;
  const model::JobExtras& extras = *job.extras;
  std::vector<std::string> tags = {tuning::MetricTagOf(spec)};
  std::vector<model::GoalType> goals = {spec.goal};
  for (const model::StudyMetric& metric : extras.extra_metrics) {
    tags.push_back(metric.id);
    goals.push_back(metric.goal);
  }
  std::vector<std::vector<double>> values;
  std::vector<std::string> ids;
  for (const model::HyperparameterOutput& trial : job.training_output->trials) {
    const auto measured = std::ranges::find(extras.trial_measurements, trial.trial_id,
                                            &model::TrialMeasurement::trial_id);
    if (!trial.final_metric || measured == extras.trial_measurements.end() ||
        measured->values.size() != extras.extra_metrics.size()) {
      continue;
    }
    std::vector<double> row = {trial.final_metric->objective_value};
    row.insert(row.end(), measured->values.begin(), measured->values.end());
    values.push_back(std::move(row));
    ids.push_back(trial.trial_id);
  }
  if (values.empty()) {
    return "";
  }
  std::vector<std::string> front;
  for (const std::size_t i : tuning::ParetoFront(values, goals)) {
    front.push_back(ids[i]);
  }
  return fmt::format(" The Pareto front of {}: trial{} {}.", fmt::join(tags, ", "),
                     front.size() == 1 ? "" : "s", fmt::join(front, ", "));
}

std::string ParamsText(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string text;
  for (const auto& [name, value] : values) {
    text += fmt::format("{}{}={}", text.empty() ? "" : ", ", name, value);
  }
  return text;
}

}  // namespace trainyard::control
