// SearchSpace::Parse and SearchSpace::Grid: the space's values as text and as a list.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "tuning/search_space.h"

namespace trainyard::tuning {
namespace {

using model::ParameterSpec;
using model::ParameterType;

// The whole of `text` as a finite double, or nullopt.
std::optional<double> ParseNumber(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// How many values a grid gives `param` (a double: an INTEGER range may be huge).
double GridCount(const ParameterSpec& param) {
  switch (param.type) {
    case ParameterType::kInteger:
      return *param.max_value - *param.min_value + 1;
    case ParameterType::kDiscrete:
      return static_cast<double>(param.discrete_values.size());
    case ParameterType::kCategorical:
      return static_cast<double>(param.categorical_values.size());
    case ParameterType::kDouble:
    case ParameterType::kUnspecified:
      break;
  }
  return 0;
}

ParameterValue GridValue(const ParameterSpec& param, std::size_t index) {
  ParameterValue value{.name = param.parameter_name};
  switch (param.type) {
    case ParameterType::kInteger:
      value.number = *param.min_value + static_cast<double>(index);
      break;
    case ParameterType::kDiscrete:
      value.number = param.discrete_values[index];
      break;
    case ParameterType::kCategorical:
      value.category = param.categorical_values[index];
      break;
    case ParameterType::kDouble:
    case ParameterType::kUnspecified:
      TY_CHECK(false) << "no grid over " << model::ParameterTypeName(param.type);
  }
  return value;
}

}  // namespace

Result<Assignment> SearchSpace::Parse(
    const std::vector<std::pair<std::string, std::string>>& values) const {
  Assignment out;
  out.reserve(params_.size());
  for (const ParameterSpec& param : params_) {
    const auto it = std::ranges::find(values, param.parameter_name,
                                      &std::pair<std::string, std::string>::first);
    if (it == values.end()) {
      return Status::InvalidArgument(
          fmt::format("parameter {} has no value in the trial", param.parameter_name));
    }
    ParameterValue value{.name = param.parameter_name};
    if (param.type == ParameterType::kCategorical) {
      value.category = it->second;
    } else {
      const std::optional<double> number = ParseNumber(it->second);
      if (!number || (param.type == ParameterType::kInteger && std::trunc(*number) != *number)) {
        return Status::InvalidArgument(
            fmt::format("parameter {}: '{}' is not {}", param.parameter_name, it->second,
                        param.type == ParameterType::kInteger ? "an integer" : "a number"));
      }
      value.number = *number;
    }
    out.push_back(std::move(value));
  }
  return out;
}

Result<std::vector<Assignment>> SearchSpace::Grid(std::size_t limit) const {
  for (const ParameterSpec& param : params_) {
    if (param.type == ParameterType::kDouble) {
      return Status::InvalidArgument(
          fmt::format("GRID_SEARCH cannot enumerate DOUBLE parameter {}; give it discrete values "
                      "(type DISCRETE) instead.",
                      param.parameter_name));
    }
  }
  double total = 1;
  for (const ParameterSpec& param : params_) {
    total *= GridCount(param);
  }
  const std::size_t size =
      total < static_cast<double>(limit) ? static_cast<std::size_t>(total) : limit;
  // An odometer over each parameter's value index; the last parameter turns fastest.
  std::vector<std::size_t> index(params_.size(), 0);
  std::vector<Assignment> out;
  out.reserve(size);
  while (out.size() < size) {
    Assignment point;
    point.reserve(params_.size());
    for (std::size_t i = 0; i < params_.size(); ++i) {
      point.push_back(GridValue(params_[i], index[i]));
    }
    out.push_back(std::move(point));
    for (std::size_t i = params_.size(); i-- > 0;) {
      if (static_cast<double>(++index[i]) < GridCount(params_[i])) {
        break;
      }
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace trainyard::tuning
