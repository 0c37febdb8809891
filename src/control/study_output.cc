#include "control/study_output.h"

#include <fmt/format.h>

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

std::string ParamsText(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string text;
  for (const auto& [name, value] : values) {
    text += fmt::format("{}{}={}", text.empty() ? "" : ", ", name, value);
  }
  return text;
}

}  // namespace trainyard::control
