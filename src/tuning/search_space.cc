#include "tuning/search_space.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "tuning/scaling.h"

namespace trainyard::tuning {
namespace {

using model::ParameterSpec;
using model::ParameterType;
using model::ScaleType;

// Reference §2.4: at most 1000 discrete values.
constexpr std::size_t kMaxDiscreteValues = 1000;
// Integral values up to this magnitude print as integers ("100000", not "1e+05").
constexpr double kMaxIntegerText = 1e15;

bool IsLogScale(ScaleType scale) {
  return scale == ScaleType::kUnitLogScale || scale == ScaleType::kUnitReverseLogScale;
}

bool IsWhole(double value) {
  return std::isfinite(value) && std::trunc(value) == value;
}

std::string ParamPath(std::size_t index) {
  return fmt::format("trainingInput.hyperparameters.params[{}]", index);
}

// Reference §2.4: DOUBLE and INTEGER need a finite range, min < max (whole for INTEGER), and a
// positive one for the log scales.
void CheckRange(const ParameterSpec& param, const std::string& path,
                std::vector<FieldViolation>& out) {
  const std::string_view type = model::ParameterTypeName(param.type);
  const std::pair<std::string_view, const std::optional<double>*> bounds[] = {
      {"minValue", &param.min_value}, {"maxValue", &param.max_value}};
  bool usable = true;
  for (const auto& [field, value] : bounds) {
    const std::string where = fmt::format("{}.{}", path, field);
    if (!value->has_value()) {
      out.push_back({where, fmt::format("is required for a {} parameter", type)});
      usable = false;
    } else if (!std::isfinite(**value)) {
      out.push_back({where, fmt::format("must be a finite number; got {}", **value)});
      usable = false;
    } else if (param.type == ParameterType::kInteger && !IsWhole(**value)) {
      out.push_back(
          {where, fmt::format("must be a whole number for an INTEGER parameter; got {}", **value)});
      usable = false;
    }
  }
  if (!usable) {
    return;
  }
  if (*param.min_value >= *param.max_value) {
    out.push_back({path + ".maxValue", fmt::format("must be greater than minValue {}; got {}",
                                                   *param.min_value, *param.max_value)});
  }
  if (IsLogScale(param.scale_type) && *param.min_value <= 0) {
    out.push_back({path + ".minValue",
                   fmt::format("must be positive with {}; got {}",
                               model::ScaleTypeName(param.scale_type), *param.min_value)});
  }
}

// Reference §2.4: CATEGORICAL needs its values, each once.
void CheckCategorical(const ParameterSpec& param, const std::string& path,
                      std::vector<FieldViolation>& out) {
  if (param.categorical_values.empty()) {
    out.push_back({path + ".categoricalValues", "is required for a CATEGORICAL parameter"});
  }
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < param.categorical_values.size(); ++i) {
    if (!seen.insert(param.categorical_values[i]).second) {
      out.push_back({fmt::format("{}.categoricalValues[{}]", path, i),
                     fmt::format("'{}' is given more than once", param.categorical_values[i])});
    }
  }
}

// Reference §2.4: DISCRETE needs 1..1000 finite, strictly increasing values (positive with the
// log scales).
void CheckDiscrete(const ParameterSpec& param, const std::string& path,
                   std::vector<FieldViolation>& out) {
  const std::vector<double>& values = param.discrete_values;
  if (values.empty()) {
    out.push_back({path + ".discreteValues", "is required for a DISCRETE parameter"});
    return;
  }
  if (values.size() > kMaxDiscreteValues) {
    out.push_back({path + ".discreteValues", fmt::format("{} values given; at most {} are allowed",
                                                         values.size(), kMaxDiscreteValues)});
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string where = fmt::format("{}.discreteValues[{}]", path, i);
    if (!std::isfinite(values[i])) {
      out.push_back({where, fmt::format("must be a finite number; got {}", values[i])});
    } else if (i > 0 && !(values[i] > values[i - 1])) {
      out.push_back({where, fmt::format("values must be strictly increasing; {} follows {}",
                                        values[i], values[i - 1])});
    }
  }
  if (IsLogScale(param.scale_type) && values.front() <= 0) {
    out.push_back({path + ".discreteValues[0]",
                   fmt::format("must be positive with {}; got {}",
                               model::ScaleTypeName(param.scale_type), values.front())});
  }
}

// DISCRETE with a scale type: each value's scaled position in [0, 1].
double DiscretePosition(const ParameterSpec& param, std::size_t index) {
  const std::vector<double>& values = param.discrete_values;
  return ScaledPosition(values[index], values.front(), values.back(), param.scale_type);
}

// The unit interval of `values[index]` of a DISCRETE parameter: the points that snap to it.
std::pair<double, double> DiscreteShare(const ParameterSpec& param, std::size_t index) {
  const std::size_t n = param.discrete_values.size();
  if (param.scale_type == ScaleType::kNone || n == 1) {
    return {static_cast<double>(index) / static_cast<double>(n),
            static_cast<double>(index + 1) / static_cast<double>(n)};
  }
  const double here = DiscretePosition(param, index);
  const double low = index == 0 ? 0.0 : (DiscretePosition(param, index - 1) + here) / 2;
  const double high = index + 1 == n ? 1.0 : (here + DiscretePosition(param, index + 1)) / 2;
  return {low, high};
}

std::size_t DiscreteIndexAt(const ParameterSpec& param, double u) {
  const std::size_t n = param.discrete_values.size();
  if (param.scale_type == ScaleType::kNone || n == 1) {
    return std::min(n - 1, static_cast<std::size_t>(u * static_cast<double>(n)));
  }
  // The first value whose share ends above `u` (the shares are ordered and cover [0, 1]).
  std::size_t low = 0;
  std::size_t high = n - 1;
  while (low < high) {
    const std::size_t mid = (low + high) / 2;
    if (DiscreteShare(param, mid).second > u) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return low;
}

// INTEGER: the range every integer's equal share spans.
std::pair<double, double> IntegerSpan(const ParameterSpec& param) {
  return {*param.min_value - 0.5, *param.max_value + 0.5};
}

const ParameterValue* FindValue(const Assignment& assignment, std::size_t index,
                                const std::string& name) {
  if (index < assignment.size() && assignment[index].name == name) {
    return &assignment[index];
  }
  const auto it = std::ranges::find(assignment, name, &ParameterValue::name);
  return it == assignment.end() ? nullptr : &*it;
}

Status NotInSpace(const ParameterSpec& param, std::string_view what) {
  return Status::InvalidArgument(
      fmt::format("parameter {}: {} is not in the search space", param.parameter_name, what));
}

}  // namespace

std::string ParameterValue::Text() const {
  if (!category.empty()) {
    return category;
  }
  std::array<char, 64> buffer{};
  std::to_chars_result written{};
  if (IsWhole(number) && std::abs(number) <= kMaxIntegerText) {
    written = std::to_chars(buffer.data(), buffer.data() + buffer.size(),
                            static_cast<std::int64_t>(number));
  } else {
    written = std::to_chars(buffer.data(), buffer.data() + buffer.size(), number);
  }
  return {buffer.data(), written.ptr};
}

Result<SearchSpace> SearchSpace::FromSpec(const model::HyperparameterSpec& spec) {
  std::vector<FieldViolation> violations;
  if (spec.params.empty()) {
    violations.push_back({"trainingInput.hyperparameters.params",
                          "is required: give at least one parameter to tune"});
  }
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const ParameterSpec& param = spec.params[i];
    const std::string path = ParamPath(i);
    if (param.parameter_name.empty()) {
      violations.push_back({path + ".parameterName", "is required"});
    } else if (!names.insert(param.parameter_name).second) {
      violations.push_back(
          {path + ".parameterName", fmt::format("'{}' names an earlier parameter too; names must "
                                                "be unique",
                                                param.parameter_name)});
    }
    switch (param.type) {
      case ParameterType::kUnspecified:
        violations.push_back(
            {path + ".type", "is required: DOUBLE, INTEGER, CATEGORICAL or DISCRETE"});
        break;
      case ParameterType::kDouble:
      case ParameterType::kInteger:
        CheckRange(param, path, violations);
        break;
      case ParameterType::kCategorical:
        CheckCategorical(param, path, violations);
        break;
      case ParameterType::kDiscrete:
        CheckDiscrete(param, path, violations);
        break;
    }
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return SearchSpace(spec.params);
}

SearchSpace::SearchSpace(std::vector<model::ParameterSpec> params) : params_(std::move(params)) {
  for (const ParameterSpec& param : params_) {
    unit_dimensions_ +=
        param.type == ParameterType::kCategorical ? param.categorical_values.size() : 1;
  }
}

Assignment SearchSpace::FromUnit(std::span<const double> unit) const {
  TY_CHECK(unit.size() == unit_dimensions_)
      << "unit point of " << unit.size() << " coordinates for a space of " << unit_dimensions_;
  Assignment out;
  out.reserve(params_.size());
  std::size_t offset = 0;
  for (const ParameterSpec& param : params_) {
    // NaN becomes 0; everything else is clamped to the cube.
    const double u = unit[offset] >= 0 ? std::min(unit[offset], 1.0) : 0.0;
    ParameterValue value{.name = param.parameter_name};
    switch (param.type) {
      case ParameterType::kDouble:
        value.number = ScaledValue(u, *param.min_value, *param.max_value, param.scale_type);
        break;
      case ParameterType::kInteger: {
        const auto [low, high] = IntegerSpan(param);
        value.number = std::clamp(std::round(ScaledValue(u, low, high, param.scale_type)),
                                  *param.min_value, *param.max_value);
        break;
      }
      case ParameterType::kDiscrete:
        value.number = param.discrete_values[DiscreteIndexAt(param, u)];
        break;
      case ParameterType::kCategorical: {
        std::size_t best = 0;
        for (std::size_t i = 1; i < param.categorical_values.size(); ++i) {
          if (unit[offset + i] > unit[offset + best]) {
            best = i;
          }
        }
        value.category = param.categorical_values[best];
        break;
      }
      case ParameterType::kUnspecified:
        TY_CHECK(false) << "FromSpec admits no PARAMETER_TYPE_UNSPECIFIED";
    }
    out.push_back(std::move(value));
    offset += param.type == ParameterType::kCategorical ? param.categorical_values.size() : 1;
  }
  return out;
}

Result<std::vector<double>> SearchSpace::ToUnit(const Assignment& assignment) const {
  std::vector<double> unit;
  unit.reserve(unit_dimensions_);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const ParameterSpec& param = params_[i];
    const ParameterValue* value = FindValue(assignment, i, param.parameter_name);
    if (value == nullptr) {
      return Status::InvalidArgument(
          fmt::format("parameter {} has no value in the trial", param.parameter_name));
    }
    const double x = value->number;
    switch (param.type) {
      case ParameterType::kDouble:
        if (!(x >= *param.min_value && x <= *param.max_value)) {
          return NotInSpace(param, value->Text());
        }
        unit.push_back(ScaledPosition(x, *param.min_value, *param.max_value, param.scale_type));
        break;
      case ParameterType::kInteger: {
        if (!IsWhole(x) || x < *param.min_value || x > *param.max_value) {
          return NotInSpace(param, value->Text());
        }
        const auto [low, high] = IntegerSpan(param);
        unit.push_back((ScaledPosition(x - 0.5, low, high, param.scale_type) +
                        ScaledPosition(x + 0.5, low, high, param.scale_type)) /
                       2);
        break;
      }
      case ParameterType::kDiscrete: {
        const auto it = std::ranges::find(param.discrete_values, x);
        if (it == param.discrete_values.end()) {
          return NotInSpace(param, value->Text());
        }
        const auto [low, high] =
            DiscreteShare(param, static_cast<std::size_t>(it - param.discrete_values.begin()));
        unit.push_back((low + high) / 2);
        break;
      }
      case ParameterType::kCategorical: {
        const auto it = std::ranges::find(param.categorical_values, value->category);
        if (it == param.categorical_values.end()) {
          return NotInSpace(param, fmt::format("'{}'", value->category));
        }
        for (auto c = param.categorical_values.begin(); c != param.categorical_values.end(); ++c) {
          unit.push_back(c == it ? 1.0 : 0.0);
        }
        break;
      }
      case ParameterType::kUnspecified:
        TY_CHECK(false) << "FromSpec admits no PARAMETER_TYPE_UNSPECIFIED";
    }
  }
  return unit;
}

}  // namespace trainyard::tuning
