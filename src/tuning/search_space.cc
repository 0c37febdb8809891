#include "tuning/search_space.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "tuning/param_rules.h"
#include "tuning/scaling.h"

namespace trainyard::tuning {
namespace {

using model::ParameterSpec;
using model::ParameterType;
using model::ScaleType;

// Integral values up to this magnitude print as integers ("100000", not "1e+05").
constexpr double kMaxIntegerText = 1e15;

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
  std::vector<FieldViolation> violations = CheckParams(spec);
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
