#include "tuning/param_rules.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace trainyard::tuning {
namespace {

using model::ParameterSpec;
using model::ParameterType;
using model::ScaleType;

constexpr std::string_view kParams = "trainingInput.hyperparameters.params";
// docs/reference/ai-platform-training.md §2.4: at most 1000 discrete values.
constexpr std::size_t kMaxDiscreteValues = 1000;

// One parameter's violations, reported under `trainingInput.hyperparameters.params[i]`.
class ParamViolations {
 public:
  ParamViolations(std::size_t index, std::vector<FieldViolation>* out)
      : path_(fmt::format("{}[{}]", kParams, index)), out_(out) {}

  void Add(std::string_view field, std::string description) {
    out_->push_back({fmt::format("{}.{}", path_, field), std::move(description)});
  }
  void Add(std::string_view field, std::size_t index, std::string description) {
    out_->push_back({fmt::format("{}.{}[{}]", path_, field, index), std::move(description)});
  }

 private:
  std::string path_;
  std::vector<FieldViolation>* out_;
};

bool IsLogScale(ScaleType scale) {
  return scale == ScaleType::kUnitLogScale || scale == ScaleType::kUnitReverseLogScale;
}

bool IsLetter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

bool IsFlagChar(char c) {
  return IsLetter(c) || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// docs/reference/ai-platform-training.md §9.1: the trainer gets each parameter as "--name=value".
bool IsFlagName(std::string_view text) {
  return !text.empty() && (IsLetter(text.front()) || text.front() == '_') &&
         std::ranges::all_of(text, IsFlagChar);
}

// docs/reference/ai-platform-training.md §2.4: parameterName is required and is also the trainer's
// flag name.
void CheckName(const ParameterSpec& param, ParamViolations& out) {
  if (param.parameter_name.empty()) {
    out.Add("parameterName", "is required");
  } else if (!IsFlagName(param.parameter_name)) {
    out.Add("parameterName",
            fmt::format("'{}' is not usable as a command-line flag: use letters, digits, '_' and "
                        "'-', starting with a letter or '_'",
                        param.parameter_name));
  }
}

// docs/reference/ai-platform-training.md §2.4: DOUBLE and INTEGER take a range, minValue < maxValue
// (whole for INTEGER); the LOG scales need it strictly positive.
void CheckRange(const ParameterSpec& param, ParamViolations& out) {
  const std::string_view type = model::ParameterTypeName(param.type);
  const std::pair<std::string_view, const std::optional<double>*> bounds[] = {
      {"minValue", &param.min_value}, {"maxValue", &param.max_value}};
  bool usable = true;
  for (const auto& [name, value] : bounds) {
    if (!value->has_value()) {
      out.Add(name, fmt::format("is required for a {} parameter", type));
      usable = false;
    } else if (!std::isfinite(**value)) {
      out.Add(name, fmt::format("must be a finite number; got {}", **value));
      usable = false;
    } else if (param.type == ParameterType::kInteger && !IsWhole(**value)) {
      out.Add(name,
              fmt::format("must be a whole number for an INTEGER parameter; got {}", **value));
      usable = false;
    }
  }
  if (!usable) {
    return;
  }
  if (*param.min_value >= *param.max_value) {
    out.Add("maxValue", fmt::format("must be greater than minValue {}; got {}", *param.min_value,
                                    *param.max_value));
  }
  if (IsLogScale(param.scale_type) && *param.min_value <= 0) {
    out.Add("minValue", fmt::format("must be positive with {}; got {}",
                                    model::ScaleTypeName(param.scale_type), *param.min_value));
  }
}

// docs/reference/ai-platform-training.md §2.4: CATEGORICAL needs its values (unique), and no range
// or scale.
void CheckCategorical(const ParameterSpec& param, ParamViolations& out) {
  if (param.categorical_values.empty()) {
    out.Add("categoricalValues", "is required for a CATEGORICAL parameter");
  }
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < param.categorical_values.size(); ++i) {
    if (!seen.insert(param.categorical_values[i]).second) {
      out.Add("categoricalValues", i,
              fmt::format("'{}' is given more than once", param.categorical_values[i]));
    }
  }
  if (param.min_value) {
    out.Add("minValue", "must not be set for a CATEGORICAL parameter");
  }
  if (param.max_value) {
    out.Add("maxValue", "must not be set for a CATEGORICAL parameter");
  }
  if (param.scale_type != ScaleType::kNone) {
    out.Add("scaleType", fmt::format("must not be set for a CATEGORICAL parameter; got {}",
                                     model::ScaleTypeName(param.scale_type)));
  }
}

// docs/reference/ai-platform-training.md §2.4: DISCRETE needs 1..1000 finite, strictly increasing
// values, positive with the LOG scales.
void CheckDiscrete(const ParameterSpec& param, ParamViolations& out) {
  const std::vector<double>& list = param.discrete_values;
  if (list.empty()) {
    out.Add("discreteValues", "is required for a DISCRETE parameter");
    return;
  }
  if (list.size() > kMaxDiscreteValues) {
    out.Add("discreteValues", fmt::format("{} values given; at most {} are allowed", list.size(),
                                          kMaxDiscreteValues));
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!std::isfinite(list[i])) {
      out.Add("discreteValues", i, fmt::format("must be a finite number; got {}", list[i]));
    } else if (i > 0 && !(list[i] > list[i - 1])) {
      out.Add(
          "discreteValues", i,
          fmt::format("values must be strictly increasing; {} follows {}", list[i], list[i - 1]));
    }
  }
  if (IsLogScale(param.scale_type) && list.front() <= 0) {
    out.Add("discreteValues", 0,
            fmt::format("must be positive with {}; got {}", model::ScaleTypeName(param.scale_type),
                        list.front()));
  }
}

void CheckType(const ParameterSpec& param, ParamViolations& out) {
  switch (param.type) {
    case ParameterType::kUnspecified:
      // docs/reference/ai-platform-training.md §2.4: PARAMETER_TYPE_UNSPECIFIED is an error.
      out.Add("type", "is required: DOUBLE, INTEGER, CATEGORICAL or DISCRETE");
      break;
    case ParameterType::kDouble:
    case ParameterType::kInteger:
      CheckRange(param, out);
      break;
    case ParameterType::kCategorical:
      CheckCategorical(param, out);
      break;
    case ParameterType::kDiscrete:
      CheckDiscrete(param, out);
      break;
  }
}

}  // namespace

std::vector<FieldViolation> CheckParams(const model::HyperparameterSpec& spec) {
  std::vector<FieldViolation> violations;
  // docs/reference/ai-platform-training.md §2.4: params is required.
  if (spec.params.empty()) {
    violations.push_back(
        {std::string(kParams), "is required: give at least one parameter to tune"});
  }
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const ParameterSpec& param = spec.params[i];
    ParamViolations out(i, &violations);
    CheckName(param, out);
    // docs/reference/ai-platform-training.md §2.4: parameter names are unique.
    if (!param.parameter_name.empty() && !names.insert(param.parameter_name).second) {
      out.Add("parameterName", fmt::format("'{}' names an earlier parameter too; names must be "
                                           "unique",
                                           param.parameter_name));
    }
    CheckType(param, out);
  }
  return violations;
}

bool IsWhole(double value) {
  return std::isfinite(value) && std::trunc(value) == value;
}

}  // namespace trainyard::tuning
