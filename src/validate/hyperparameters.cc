#include <cmath>
#include <set>

#include <fmt/format.h>

#include "validate/formats.h"
#include "validate/rules.h"

namespace trainyard::validate {
namespace {

using model::ParameterSpec;
using model::ParameterType;
using model::ScaleType;

// Reference §2.4: at most 1000 discrete values.
constexpr std::size_t kMaxDiscreteValues = 1000;

bool IsLogScale(ScaleType scale) {
  return scale == ScaleType::kUnitLogScale || scale == ScaleType::kUnitReverseLogScale;
}

bool IsWhole(double value) {
  return std::isfinite(value) && std::trunc(value) == value;
}

// Reference §2.4: DOUBLE and INTEGER take a range, minValue < maxValue (whole for INTEGER);
// the LOG scales need it strictly positive.
void CheckRange(const ParameterSpec& param, const FieldPath& path, Violations& out) {
  const std::string_view type = model::ParameterTypeName(param.type);
  const std::pair<std::string_view, const std::optional<double>*> bounds[] = {
      {"minValue", &param.min_value}, {"maxValue", &param.max_value}};
  bool usable = true;
  for (const auto& [name, value] : bounds) {
    if (!value->has_value()) {
      out.Add(path.Child(name), fmt::format("is required for a {} parameter", type));
      usable = false;
    } else if (!std::isfinite(**value)) {
      out.Add(path.Child(name), fmt::format("must be a finite number; got {}", **value));
      usable = false;
    } else if (param.type == ParameterType::kInteger && !IsWhole(**value)) {
      out.Add(path.Child(name), fmt::format("must be a whole number for an INTEGER parameter; "
                                            "got {}",
                                            **value));
      usable = false;
    }
  }
  if (!usable) {
    return;
  }
  if (*param.min_value >= *param.max_value) {
    out.Add(path.Child("maxValue"), fmt::format("must be greater than minValue {}; got {}",
                                                *param.min_value, *param.max_value));
  }
  if (IsLogScale(param.scale_type) && *param.min_value <= 0) {
    out.Add(path.Child("minValue"),
            fmt::format("must be positive with {}; got {}", model::ScaleTypeName(param.scale_type),
                        *param.min_value));
  }
}

// Reference §2.4: CATEGORICAL needs its values (unique), and no range or scale.
void CheckCategorical(const ParameterSpec& param, const FieldPath& path, Violations& out) {
  const FieldPath values = path.Child("categoricalValues");
  if (param.categorical_values.empty()) {
    out.Add(values, "is required for a CATEGORICAL parameter");
  }
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < param.categorical_values.size(); ++i) {
    if (!seen.insert(param.categorical_values[i]).second) {
      out.Add(values.Index(i),
              fmt::format("'{}' is given more than once", param.categorical_values[i]));
    }
  }
  if (param.min_value) {
    out.Add(path.Child("minValue"), "must not be set for a CATEGORICAL parameter");
  }
  if (param.max_value) {
    out.Add(path.Child("maxValue"), "must not be set for a CATEGORICAL parameter");
  }
  if (param.scale_type != ScaleType::kNone) {
    out.Add(path.Child("scaleType"), fmt::format("must not be set for a CATEGORICAL parameter; "
                                                 "got {}",
                                                 model::ScaleTypeName(param.scale_type)));
  }
}

// Reference §2.4: DISCRETE needs 1..1000 strictly increasing values, positive with LOG scales.
void CheckDiscrete(const ParameterSpec& param, const FieldPath& path, Violations& out) {
  const FieldPath values = path.Child("discreteValues");
  const std::vector<double>& list = param.discrete_values;
  if (list.empty()) {
    out.Add(values, "is required for a DISCRETE parameter");
  }
  if (list.size() > kMaxDiscreteValues) {
    out.Add(values, fmt::format("{} values given; at most {} are allowed", list.size(),
                                kMaxDiscreteValues));
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!std::isfinite(list[i])) {
      out.Add(values.Index(i), fmt::format("must be a finite number; got {}", list[i]));
    } else if (i > 0 && !(list[i] > list[i - 1])) {
      out.Add(values.Index(i), fmt::format("values must be strictly increasing; {} follows {}",
                                           list[i], list[i - 1]));
    }
  }
  if (IsLogScale(param.scale_type) && !list.empty() && list.front() <= 0) {
    out.Add(values.Index(0), fmt::format("must be positive with {}; got {}",
                                         model::ScaleTypeName(param.scale_type), list.front()));
  }
}

void CheckParam(const ParameterSpec& param, const FieldPath& path, model::Algorithm algorithm,
                Violations& out) {
  // Reference §2.4: parameterName is required and is also the trainer's flag name.
  if (param.parameter_name.empty()) {
    out.Add(path.Child("parameterName"), "is required");
  } else if (!IsFlagName(param.parameter_name)) {
    out.Add(path.Child("parameterName"),
            fmt::format("'{}' is not usable as a command-line flag: use letters, digits, '_' and "
                        "'-', starting with a letter or '_'",
                        param.parameter_name));
  }
  switch (param.type) {
    case ParameterType::kUnspecified:
      // Reference §2.4: PARAMETER_TYPE_UNSPECIFIED is an error.
      out.Add(path.Child("type"), "is required: DOUBLE, INTEGER, CATEGORICAL or DISCRETE");
      return;
    case ParameterType::kDouble:
    case ParameterType::kInteger:
      CheckRange(param, path, out);
      break;
    case ParameterType::kCategorical:
      CheckCategorical(param, path, out);
      break;
    case ParameterType::kDiscrete:
      CheckDiscrete(param, path, out);
      break;
  }
  // Reference §2.4: GRID_SEARCH needs every parameter INTEGER, CATEGORICAL or DISCRETE.
  if (algorithm == model::Algorithm::kGridSearch && param.type == ParameterType::kDouble) {
    out.Add(path.Child("type"),
            "GRID_SEARCH cannot enumerate a DOUBLE parameter; use INTEGER, "
            "CATEGORICAL or DISCRETE");
  }
}

void CheckTrialCounts(const model::HyperparameterSpec& spec, const FieldPath& path,
                      Violations& out) {
  const std::pair<std::string_view, std::int32_t> counts[] = {
      {"maxTrials", spec.max_trials},
      {"maxParallelTrials", spec.max_parallel_trials},
      {"maxFailedTrials", spec.max_failed_trials}};
  bool negative = false;
  for (const auto& [name, value] : counts) {
    // Reference §2.4: trial counts are never negative (0 means the default).
    if (value < 0) {
      out.Add(path.Child(name), fmt::format("must not be negative; got {}", value));
      negative = true;
    }
  }
  if (negative) {
    return;
  }
  // Reference §2.8 #14: maxParallelTrials <= maxTrials (each defaults to 1).
  const std::int32_t trials = spec.max_trials == 0 ? 1 : spec.max_trials;
  const std::int32_t parallel = spec.max_parallel_trials == 0 ? 1 : spec.max_parallel_trials;
  if (parallel > trials) {
    out.Add(path.Child("maxParallelTrials"),
            fmt::format("{} parallel trials exceed maxTrials {}{}", parallel, trials,
                        spec.max_trials == 0 ? " (the default)" : ""));
  }
}

}  // namespace

void CheckHyperparameters(const JobContext& job, Violations& out) {
  if (!job.input.hyperparameters) {
    return;
  }
  const model::HyperparameterSpec& spec = *job.input.hyperparameters;
  const FieldPath path = job.path.Child("hyperparameters");
  // Reference §2.4: params is required.
  if (spec.params.empty()) {
    out.Add(path.Child("params"), "is required: give at least one parameter to tune");
  }
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const FieldPath param_path = path.Child("params").Index(i);
    CheckParam(spec.params[i], param_path, spec.algorithm, out);
    // Reference §2.4: parameter names are unique.
    const std::string& name = spec.params[i].parameter_name;
    if (!name.empty() && !names.insert(name).second) {
      out.Add(param_path.Child("parameterName"),
              fmt::format("'{}' names an earlier parameter too; names must be unique", name));
    }
  }
  CheckTrialCounts(spec, path, out);
  // Reference §2.4: POPULATION_BASED_TRAINING is in the schema only.
  if (spec.algorithm == model::Algorithm::kPopulationBasedTraining) {
    out.Add(path.Child("algorithm"),
            "POPULATION_BASED_TRAINING is not offered; use "
            "ALGORITHM_UNSPECIFIED (Bayesian), GRID_SEARCH or "
            "RANDOM_SEARCH");
  }
  // Reference §2.4: resumePreviousJobId names an earlier job, so it is a job id.
  if (!spec.resume_previous_job_id.empty() && !IsJobId(spec.resume_previous_job_id)) {
    out.Add(path.Child("resumePreviousJobId"),
            fmt::format("'{}' is not a valid job id", spec.resume_previous_job_id));
  }
}

}  // namespace trainyard::validate
