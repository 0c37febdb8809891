#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "vertex/decode_internal.h"
#include "vertex/json_reader.h"
#include "vertex/tuning_job.h"

namespace trainyard::vertex {
namespace {

using internal::Problems;
using internal::Reader;
using nlohmann::json;

constexpr std::array<std::pair<std::string_view, model::ScaleType>, 4> kScaleTypes = {{
    {"SCALE_TYPE_UNSPECIFIED", model::ScaleType::kNone},
    {"UNIT_LINEAR_SCALE", model::ScaleType::kUnitLinearScale},
    {"UNIT_LOG_SCALE", model::ScaleType::kUnitLogScale},
    {"UNIT_REVERSE_LOG_SCALE", model::ScaleType::kUnitReverseLogScale},
}};

constexpr std::array<std::pair<std::string_view, model::Algorithm>, 3> kAlgorithms = {{
    {"ALGORITHM_UNSPECIFIED", model::Algorithm::kUnspecified},
    {"GRID_SEARCH", model::Algorithm::kGridSearch},
    {"RANDOM_SEARCH", model::Algorithm::kRandomSearch},
}};

constexpr std::array<std::pair<std::string_view, model::GoalType>, 3> kGoals = {{
    {"GOAL_TYPE_UNSPECIFIED", model::GoalType::kUnspecified},
    {"MAXIMIZE", model::GoalType::kMaximize},
    {"MINIMIZE", model::GoalType::kMinimize},
}};

template <typename T, std::size_t N>
T EnumValue(Reader& reader, std::string_view name,
            const std::array<std::pair<std::string_view, T>, N>& table) {
  const std::string text = reader.String(name);
  if (text.empty()) {
    return table[0].second;
  }
  std::string names;
  for (const auto& [spelling, value] : table) {
    if (spelling == text) {
      return value;
    }
    names += names.empty() ? "" : ", ";
    names += spelling;
  }
  reader.problems().Add(reader.ChildPath(name),
                        fmt::format("Invalid value at '{}': \"{}\" is not one of {}",
                                    reader.ChildPath(name), text, names));
  return table[0].second;
}

// The one value spec of a parameter, into `out`; counts the specs present.
int ReadValueSpecs(Reader& parameter, model::ParameterSpec& out) {
  int specs = 0;
  Problems& problems = parameter.problems();
  if (const json* value = parameter.Object("doubleValueSpec"); value != nullptr) {
    Reader spec(*value, parameter.ChildPath("doubleValueSpec"), problems);
    out.type = model::ParameterType::kDouble;
    out.min_value = spec.Number("minValue");
    out.max_value = spec.Number("maxValue");
    spec.Ignore("defaultValue");
    spec.Finish();
    ++specs;
  }
  if (const json* value = parameter.Object("integerValueSpec"); value != nullptr) {
    Reader spec(*value, parameter.ChildPath("integerValueSpec"), problems);
    out.type = model::ParameterType::kInteger;
    out.min_value = static_cast<double>(spec.Int64("minValue"));
    out.max_value = static_cast<double>(spec.Int64("maxValue"));
    spec.Ignore("defaultValue");
    spec.Finish();
    ++specs;
  }
  if (const json* value = parameter.Object("categoricalValueSpec"); value != nullptr) {
    Reader spec(*value, parameter.ChildPath("categoricalValueSpec"), problems);
    out.type = model::ParameterType::kCategorical;
    out.categorical_values = spec.StringList("values");
    spec.Ignore("defaultValue");
    spec.Finish();
    ++specs;
  }
  if (const json* value = parameter.Object("discreteValueSpec"); value != nullptr) {
    Reader spec(*value, parameter.ChildPath("discreteValueSpec"), problems);
    out.type = model::ParameterType::kDiscrete;
    if (const json* values = spec.Array("values"); values != nullptr) {
      for (const json& item : *values) {
        if (!item.is_number()) {
          problems.Add(spec.ChildPath("values"), "Invalid value: expected numbers");
          break;
        }
        out.discrete_values.push_back(item.get<double>());
      }
    }
    spec.Ignore("defaultValue");
    spec.Finish();
    ++specs;
  }
  return specs;
}

// A parent condition's values ("parentIntValues": {"values": ["2", 3]}): numbers, or for int64
// values the decimal strings proto3 JSON also allows.
std::vector<double> ConditionValues(const json& value, const std::string& path, bool integers,
                                    Problems& problems) {
  Reader holder(value, path, problems);
  std::vector<double> out;
  if (const json* values = holder.Array("values"); values != nullptr) {
    for (const json& item : *values) {
      std::optional<double> number;
      if (item.is_number()) {
        number = item.get<double>();
      } else if (integers && item.is_string()) {
        const auto& text = item.get_ref<const std::string&>();
        std::int64_t parsed = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, parsed);
        if (ec == std::errc() && ptr == end) {
          number = static_cast<double>(parsed);
        }
      }
      if (!number.has_value() || (integers && *number != std::trunc(*number))) {
        problems.Add(holder.ChildPath("values"), integers ? "Invalid value: expected integers"
                                                          : "Invalid value: expected numbers");
        break;
      }
      out.push_back(*number);
    }
  }
  holder.Finish();
  return out;
}

// How deep conditional parameters may nest: far more than any study has, and a bound on the
// decoder's recursion for a hostile body.
constexpr int kMaxConditionDepth = 16;

void ReadParameter(const json& value, const std::string& path, int depth, StudySpec& out,
                   Problems& problems);

// One of a parameter's conditionalParameterSpecs: the child (flattened after its parent, with
// its condition) and its own children in turn.
void ReadConditional(const json& value, const std::string& path, const std::string& parent,
                     int depth, StudySpec& out, Problems& problems) {
  Reader conditional(value, path, problems);
  model::ParameterCondition condition{.parent = parent};
  int kinds = 0;
  if (const json* discrete = conditional.Object("parentDiscreteValues"); discrete != nullptr) {
    condition.parent_values = ConditionValues(
        *discrete, conditional.ChildPath("parentDiscreteValues"), /*integers=*/false, problems);
    ++kinds;
  }
  if (const json* integers = conditional.Object("parentIntValues"); integers != nullptr) {
    condition.parent_values = ConditionValues(*integers, conditional.ChildPath("parentIntValues"),
                                              /*integers=*/true, problems);
    ++kinds;
  }
  if (const json* categories = conditional.Object("parentCategoricalValues");
      categories != nullptr) {
    Reader holder(*categories, conditional.ChildPath("parentCategoricalValues"), problems);
    condition.parent_categories = holder.StringList("values");
    holder.Finish();
    ++kinds;
  }
  if (kinds != 1) {
    problems.Add(path, fmt::format("A conditional parameter needs exactly one of "
                                   "parentDiscreteValues, parentIntValues and "
                                   "parentCategoricalValues; got {}",
                                   kinds));
  }
  const json* child = conditional.Object("parameterSpec");
  conditional.Finish();
  if (child == nullptr) {
    problems.Add(path + ".parameterSpec", "A conditional parameter needs a parameterSpec.");
    return;
  }
  // The child's condition before its own children's, as its spec comes before theirs.
  const std::size_t param = out.parameters.size();
  const std::size_t index = out.conditions.size();
  out.conditions.push_back(std::move(condition));
  ReadParameter(*child, path + ".parameterSpec", depth, out, problems);
  out.conditions[index].parameter = out.parameters[param].parameter_name;
}

// A parameter, then its conditional children depth first: the order the engine's flat space
// lists them in (a parent before its children).
void ReadParameter(const json& value, const std::string& path, int depth, StudySpec& out,
                   Problems& problems) {
  Reader parameter(value, path, problems);
  model::ParameterSpec param;
  param.parameter_name = parameter.String("parameterId");
  const int specs = ReadValueSpecs(parameter, param);
  if (specs != 1) {
    problems.Add(path, fmt::format("A parameter needs exactly one of doubleValueSpec, "
                                   "integerValueSpec, categoricalValueSpec and "
                                   "discreteValueSpec; got {}",
                                   specs));
  }
  param.scale_type = EnumValue(parameter, "scaleType", kScaleTypes);
  const json* children = parameter.Array("conditionalParameterSpecs");
  parameter.Finish();
  const std::string name = param.parameter_name;
  out.parameters.push_back(std::move(param));
  out.parameter_paths.push_back(path);
  if (children != nullptr && !children->empty() && depth >= kMaxConditionDepth) {
    problems.Add(path + ".conditionalParameterSpecs",
                 fmt::format("conditional parameters nest at most {} deep", kMaxConditionDepth));
  } else if (children != nullptr) {
    for (std::size_t i = 0; i < children->size(); ++i) {
      ReadConditional((*children)[i], fmt::format("{}.conditionalParameterSpecs[{}]", path, i),
                      name, depth + 1, out, problems);
    }
  }
}

StudySpec ReadStudySpec(const json& value, Problems& problems) {
  Reader spec(value, "studySpec", problems);
  StudySpec out;
  if (const json* metrics = spec.Array("metrics"); metrics != nullptr) {
    for (std::size_t i = 0; i < metrics->size(); ++i) {
      Reader metric((*metrics)[i], fmt::format("studySpec.metrics[{}]", i), problems);
      model::StudyMetric read{.id = metric.String("metricId"),
                              .goal = EnumValue(metric, "goal", kGoals)};
      metric.Unsupported("safetyConfig", "safe search is not supported");
      metric.Finish();
      if (i == 0) {
        out.metric_id = std::move(read.id);
        out.goal = read.goal;
      } else {
        out.extra_metrics.push_back(std::move(read));
      }
    }
  }
  if (const json* parameters = spec.Array("parameters"); parameters != nullptr) {
    for (std::size_t i = 0; i < parameters->size(); ++i) {
      ReadParameter((*parameters)[i], fmt::format("studySpec.parameters[{}]", i), 0, out, problems);
    }
  }
  out.algorithm = EnumValue(spec, "algorithm", kAlgorithms);
  const bool decay = spec.Object("decayCurveStoppingSpec") != nullptr;
  const bool median = spec.Object("medianAutomatedStoppingSpec") != nullptr;
  out.early_stopping = decay || median;
  spec.Unsupported("convexAutomatedStoppingSpec",
                   "use medianAutomatedStoppingSpec (the engine's median stopping rule)");
  spec.Unsupported("studyStoppingConfig", "a study ends at maxTrialCount");
  spec.Ignore("observationNoise");
  const std::string selection = spec.String("measurementSelectionType");
  if (selection == "BEST_MEASUREMENT") {
    out.best_measurement = true;
  } else if (!selection.empty() && selection != "LAST_MEASUREMENT" &&
             selection != "MEASUREMENT_SELECTION_TYPE_UNSPECIFIED") {
    problems.Add(spec.ChildPath("measurementSelectionType"),
                 fmt::format("\"{}\" is not one of LAST_MEASUREMENT, BEST_MEASUREMENT", selection));
  }
  spec.Finish();
  return out;
}

}  // namespace

Result<TuningJob> DecodeTuningJob(std::string_view text) {
  Result<json> body = internal::ParseBody(text);
  if (!body.ok()) {
    return body.status();
  }
  Problems problems;
  Reader job(*body, "", problems);
  TuningJob out;
  out.display_name = job.String("displayName");
  if (const json* spec = job.Object("studySpec"); spec != nullptr) {
    out.study_spec = ReadStudySpec(*spec, problems);
  }
  out.max_trial_count = job.Int32("maxTrialCount");
  out.parallel_trial_count = job.Int32("parallelTrialCount");
  out.max_failed_trial_count = job.Int32("maxFailedTrialCount");
  if (const json* spec = job.Object("trialJobSpec"); spec != nullptr) {
    out.trial_job_spec = internal::ReadJobSpec(*spec, "trialJobSpec", problems);
  }
  out.labels = job.StringMap("labels");
  job.Ignore("encryptionSpec");
  for (const char* output_only :
       {"name", "state", "createTime", "startTime", "endTime", "updateTime", "error", "trials",
        "satisfiesPzs", "satisfiesPzi"}) {
    job.Ignore(output_only);
  }
  job.Finish();
  if (!problems.empty()) {
    return problems.ToStatus();
  }
  return out;
}

}  // namespace trainyard::vertex
