#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "tuning/conditional_space.h"
#include "tuning/search_space.h"
#include "vertex/tuning_job.h"
#include "vertex/vertex_json.h"

namespace trainyard::vertex {
namespace {

using nlohmann::ordered_json;

// Vertex AI's Trial.State for a trial of the engine.
std::string_view TrialState(model::JobState state) {
  switch (state) {
    case model::JobState::kSucceeded:
      return "SUCCEEDED";
    case model::JobState::kFailed:
    case model::JobState::kCancelled:
      return "INFEASIBLE";
    case model::JobState::kCancelling:
      return "STOPPING";
    default:
      return "ACTIVE";
  }
}

// A parameter's value as Vertex types it: a number, or a string for a categorical one.
ordered_json ParameterValue(const model::ParameterSpec* spec, const std::string& text) {
  if (spec != nullptr && spec->type != model::ParameterType::kCategorical) {
    double number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error == std::errc() && end == text.data() + text.size()) {
      return number;
    }
  }
  return text;
}

// A trial as Vertex shows it; its finalMeasurement lists every metric in studySpec.metrics order.
ordered_json EncodeTrial(const model::HyperparameterOutput& trial,
                         const model::HyperparameterSpec& spec, const model::JobExtras& extras) {
  ordered_json out = ordered_json::object();
  out["id"] = trial.trial_id;
  out["state"] = TrialState(trial.state);
  ordered_json parameters = ordered_json::array();
  for (const auto& [name, value] : trial.hyperparameters) {
    const auto param = std::ranges::find(spec.params, name, &model::ParameterSpec::parameter_name);
    parameters.push_back(
        {{"parameterId", name},
         {"value", ParameterValue(param == spec.params.end() ? nullptr : &*param, value)}});
  }
  out["parameters"] = std::move(parameters);
  if (trial.final_metric.has_value()) {
    ordered_json metrics = ordered_json::array({{{"metricId", spec.hyperparameter_metric_tag},
                                                 {"value", trial.final_metric->objective_value}}});
    const auto measured = std::ranges::find(extras.trial_measurements, trial.trial_id,
                                            &model::TrialMeasurement::trial_id);
    for (std::size_t i = 0; i < extras.extra_metrics.size(); ++i) {
      if (measured != extras.trial_measurements.end() && i < measured->values.size()) {
        metrics.push_back(
            {{"metricId", extras.extra_metrics[i].id}, {"value", measured->values[i]}});
      }
    }
    out["finalMeasurement"] = {{"stepCount", std::to_string(trial.final_metric->training_step)},
                               {"metrics", std::move(metrics)}};
  }
  if (trial.start_time.has_value()) {
    out["startTime"] = FormatTimestamp(*trial.start_time);
  }
  if (trial.end_time.has_value()) {
    out["endTime"] = FormatTimestamp(*trial.end_time);
  }
  return out;
}

// What is wrong with the conditions of a study whose flat space is sound (ml v1's rules report a
// bad space), on the conditionalParameterSpecs entry of each child.
std::vector<FieldViolation> ConditionViolations(const StudySpec& study) {
  if (study.conditions.empty()) {
    return {};
  }
  model::HyperparameterSpec flat;
  flat.params = study.parameters;
  if (!tuning::SearchSpace::FromSpec(flat).ok()) {
    return {};
  }
  const Result<tuning::ConditionalSpace> space =
      tuning::ConditionalSpace::Make(flat, study.conditions);
  if (space.ok()) {
    return {};
  }
  std::vector<FieldViolation> out;
  for (const FieldViolation& violation : space.status().violations()) {
    // "parameters[i].condition": child i, whose spec sits at "<entry>.parameterSpec".
    std::size_t index = study.parameter_paths.size();
    if (violation.field.starts_with("parameters[")) {
      index = std::strtoul(violation.field.c_str() + std::strlen("parameters["), nullptr, 10);
    }
    std::string field = "studySpec.parameters";
    if (index < study.parameter_paths.size()) {
      field = study.parameter_paths[index];
      constexpr std::string_view kSpec = ".parameterSpec";
      if (field.ends_with(kSpec)) {
        field.resize(field.size() - kSpec.size());
      }
    }
    out.push_back({std::move(field), violation.description});
  }
  return out;
}

// A study needs a metric; each needs an id of its own and a goal.
std::vector<FieldViolation> MetricViolations(const StudySpec& study) {
  if (study.metric_id.empty() && study.extra_metrics.empty()) {
    return {{"studySpec.metrics", "A study needs one metric with a metricId."}};
  }
  std::vector<model::StudyMetric> metrics = {{.id = study.metric_id, .goal = study.goal}};
  metrics.insert(metrics.end(), study.extra_metrics.begin(), study.extra_metrics.end());
  std::vector<FieldViolation> out;
  std::map<std::string_view, std::size_t> seen;  // id -> its first index
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const std::string path = fmt::format("studySpec.metrics[{}]", i);
    const auto [first, fresh] = seen.emplace(metrics[i].id, i);
    if (metrics[i].id.empty()) {
      out.push_back({path + ".metricId", "must not be empty"});
    } else if (!fresh) {
      out.push_back({path + ".metricId",
                     fmt::format("\"{}\" is already studySpec.metrics[{}]; each metric is "
                                 "reported under its own id",
                                 metrics[i].id, first->second)});
    }
    if (metrics[i].goal == model::GoalType::kUnspecified) {
      out.push_back({path + ".goal", "must be MAXIMIZE or MINIMIZE"});
    }
  }
  return out;
}

}  // namespace

std::vector<FieldViolation> ValidateTuningJob(const TuningJob& job, const MappingContext& context) {
  std::vector<FieldViolation> out = ValidateDisplayName(job.display_name);
  if (job.max_trial_count <= 0) {
    out.push_back({"maxTrialCount", "must be a positive number of trials"});
  }
  if (job.parallel_trial_count <= 0) {
    out.push_back({"parallelTrialCount", "must be a positive number of trials"});
  }
  if (job.max_failed_trial_count < 0) {
    out.push_back({"maxFailedTrialCount", "must not be negative"});
  }
  const StudySpec& study = job.study_spec;
  for (FieldViolation& violation : MetricViolations(study)) {
    out.push_back(std::move(violation));
  }
  if (study.parameters.empty()) {
    out.push_back({"studySpec.parameters", "A study needs at least one parameter."});
  }
  for (FieldViolation& violation : ConditionViolations(study)) {
    out.push_back(std::move(violation));
  }
  for (FieldViolation& violation : ValidateJobSpec(job.trial_job_spec, "trialJobSpec", context)) {
    out.push_back(std::move(violation));
  }
  return out;
}

model::Job ToJob(const TuningJob& job, const MappingContext& context) {
  model::Job out;
  out.job_id = context.job_id;
  out.labels = job.labels;
  out.training_input = ToTrainingInput(job.trial_job_spec, context.location);
  model::HyperparameterSpec spec;
  spec.goal = job.study_spec.goal;
  spec.params = job.study_spec.parameters;
  spec.max_trials = job.max_trial_count;
  spec.max_parallel_trials = job.parallel_trial_count;
  spec.max_failed_trials = job.max_failed_trial_count;
  spec.hyperparameter_metric_tag = job.study_spec.metric_id;
  spec.enable_trial_early_stopping = job.study_spec.early_stopping;
  spec.algorithm = job.study_spec.algorithm;
  out.training_input->hyperparameters = std::move(spec);
  out.extras = ToExtras(job.trial_job_spec, context, job.display_name);
  out.extras->best_measurement = job.study_spec.best_measurement;
  out.extras->parameter_conditions = job.study_spec.conditions;
  out.extras->extra_metrics = job.study_spec.extra_metrics;
  return out;
}

ordered_json EncodeTuningJob(std::string_view project, const model::Job& job) {
  ordered_json out = EncodeCommonFields(project, job);
  ordered_json document = ordered_json::parse(job.extras->vertex->document, nullptr, false);
  if (document.is_object()) {
    for (const char* key : {"studySpec", "maxTrialCount", "parallelTrialCount",
                            "maxFailedTrialCount", "trialJobSpec"}) {
      if (const auto it = document.find(key); it != document.end()) {
        out[key] = *it;
      }
    }
  }
  static const model::HyperparameterSpec kNoSpec;
  const model::HyperparameterSpec& spec =
      job.training_input.has_value() && job.training_input->hyperparameters.has_value()
          ? *job.training_input->hyperparameters
          : kNoSpec;
  if (job.training_output.has_value() && !job.training_output->trials.empty()) {
    ordered_json trials = ordered_json::array();
    for (const model::HyperparameterOutput& trial : job.training_output->trials) {
      trials.push_back(EncodeTrial(trial, spec, *job.extras));
    }
    out["trials"] = std::move(trials);
  }
  return out;
}

}  // namespace trainyard::vertex
