#include "tuning/conditional_space.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace trainyard::tuning {
namespace {

using model::ParameterType;

std::string Field(std::size_t i) {
  return fmt::format("parameters[{}].condition", i);
}

// Why `condition` cannot hang under `parent`, or "".
std::string ConditionError(const model::ParameterCondition& condition,
                           const model::ParameterSpec& parent) {
  switch (parent.type) {
    case ParameterType::kCategorical:
      if (condition.parent_categories.empty() || !condition.parent_values.empty()) {
        return fmt::format(
            "a child of CATEGORICAL parameter {} needs parent categories, and only "
            "those",
            parent.parameter_name);
      }
      for (const std::string& category : condition.parent_categories) {
        if (std::ranges::find(parent.categorical_values, category) ==
            parent.categorical_values.end()) {
          return fmt::format("{} is not a value of parameter {}", category, parent.parameter_name);
        }
      }
      return "";
    case ParameterType::kInteger:
    case ParameterType::kDiscrete:
      if (condition.parent_values.empty() || !condition.parent_categories.empty()) {
        return fmt::format("a child of parameter {} needs parent values, and only those",
                           parent.parameter_name);
      }
      for (const double value : condition.parent_values) {
        const bool in =
            parent.type == ParameterType::kInteger
                ? value == std::round(value) && value >= *parent.min_value &&
                      value <= *parent.max_value
                : std::ranges::find(parent.discrete_values, value) != parent.discrete_values.end();
        if (!in) {
          return fmt::format("{:g} is not a value of parameter {}", value, parent.parameter_name);
        }
      }
      return "";
    case ParameterType::kDouble:
    case ParameterType::kUnspecified:
      break;
  }
  return fmt::format("parameter {} is DOUBLE; a parent must be DISCRETE, INTEGER or CATEGORICAL",
                     parent.parameter_name);
}

ParameterValue StandIn(const model::ParameterSpec& param) {
  ParameterValue value{.name = param.parameter_name, .number = 0, .category = ""};
  switch (param.type) {
    case ParameterType::kCategorical:
      value.category = param.categorical_values.front();
      break;
    case ParameterType::kDiscrete:
      value.number = param.discrete_values.front();
      break;
    case ParameterType::kDouble:
    case ParameterType::kInteger:
    case ParameterType::kUnspecified:
      value.number = param.min_value.value_or(0);
      break;
  }
  return value;
}

std::optional<std::size_t> IndexOf(const model::HyperparameterSpec& spec, std::string_view name) {
  const auto it = std::ranges::find(spec.params, name, &model::ParameterSpec::parameter_name);
  if (it == spec.params.end()) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(it - spec.params.begin());
}

}  // namespace

bool ConditionalSpace::Matches(const Condition& condition, const ParameterValue& parent) {
  return condition.parent_categories.empty()
             ? std::ranges::find(condition.parent_values, parent.number) !=
                   condition.parent_values.end()
             : std::ranges::find(condition.parent_categories, parent.category) !=
                   condition.parent_categories.end();
}

Result<ConditionalSpace> ConditionalSpace::Make(
    const model::HyperparameterSpec& spec, std::span<const model::ParameterCondition> conditions) {
  Result<SearchSpace> flat = SearchSpace::FromSpec(spec);
  if (!flat.ok()) {
    return flat.status();
  }
  std::vector<std::optional<Condition>> resolved(spec.params.size());
  std::vector<FieldViolation> violations;
  for (const model::ParameterCondition& condition : conditions) {
    const std::optional<std::size_t> child = IndexOf(spec, condition.parameter);
    if (!child) {
      violations.push_back({.field = "parameters",
                            .description = fmt::format("a condition names parameter {}, which "
                                                       "the study does not have",
                                                       condition.parameter)});
      continue;
    }
    const std::size_t i = *child;
    const std::optional<std::size_t> parent = IndexOf(spec, condition.parent);
    std::string error;
    if (resolved[i]) {
      error = fmt::format("parameter {} has two conditions", condition.parameter);
    } else if (!parent || *parent >= i) {
      error = fmt::format("the parent of parameter {} must come before it", condition.parameter);
    } else {
      error = ConditionError(condition, spec.params[*parent]);
    }
    if (!error.empty()) {
      violations.push_back({.field = Field(i), .description = error});
      continue;
    }
    resolved[i] = Condition{.parent = *parent,
                            .parent_values = condition.parent_values,
                            .parent_categories = condition.parent_categories};
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return ConditionalSpace(*std::move(flat), std::move(resolved));
}

ConditionalSpace ConditionalSpace::Unconditional(SearchSpace flat) {
  std::vector<std::optional<Condition>> none(flat.params().size());
  return ConditionalSpace(std::move(flat), std::move(none));
}

bool ConditionalSpace::conditional() const {
  return std::ranges::any_of(conditions_,
                             [](const auto& condition) { return condition.has_value(); });
}

std::vector<bool> ConditionalSpace::Active(const Assignment& full) const {
  std::vector<bool> active(conditions_.size(), true);
  // Parents come first, so one pass sees each parent's activity before its children.
  for (std::size_t i = 0; i < conditions_.size(); ++i) {
    if (conditions_[i]) {
      const std::size_t parent = conditions_[i]->parent;
      active[i] = active[parent] && Matches(*conditions_[i], full[parent]);
    }
  }
  return active;
}

Assignment ConditionalSpace::Restrict(const Assignment& full) const {
  const std::vector<bool> active = Active(full);
  Assignment out;
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (active[i]) {
      out.push_back(full[i]);
    }
  }
  return out;
}

Assignment ConditionalSpace::Canonical(const Assignment& full) const {
  const std::vector<bool> active = Active(full);
  Assignment out = full;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!active[i]) {
      out[i] = StandIn(flat_.params()[i]);
    }
  }
  return out;
}

Result<Assignment> ConditionalSpace::Complete(const Assignment& trial) const {
  const std::vector<model::ParameterSpec>& params = flat_.params();
  Assignment full;
  for (const model::ParameterSpec& param : params) {
    full.push_back(StandIn(param));
  }
  std::vector<bool> given(params.size(), false);
  for (const ParameterValue& value : trial) {
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (params[i].parameter_name == value.name) {
        full[i] = value;
        given[i] = true;
      }
    }
  }
  const std::vector<bool> active = Active(full);
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (active[i] && !given[i]) {
      return Status::InvalidArgument(fmt::format(
          "trial has no value for parameter {}, which is active", params[i].parameter_name));
    }
    if (!active[i]) {
      full[i] = StandIn(params[i]);
    }
  }
  return full;
}

Result<Assignment> ConditionalSpace::Parse(
    const std::vector<std::pair<std::string, std::string>>& values) const {
  // The flat space parses whole assignments: give it each missing parameter's stand-in, then
  // keep only the values the trial had.
  std::vector<std::pair<std::string, std::string>> whole = values;
  for (const model::ParameterSpec& param : flat_.params()) {
    if (std::ranges::find(values, param.parameter_name,
                          &std::pair<std::string, std::string>::first) == values.end()) {
      whole.emplace_back(param.parameter_name, StandIn(param).Text());
    }
  }
  Result<Assignment> parsed = flat_.Parse(whole);
  if (!parsed.ok()) {
    return parsed.status();
  }
  Assignment given;
  for (ParameterValue& value : *parsed) {
    if (std::ranges::find(values, value.name, &std::pair<std::string, std::string>::first) !=
        values.end()) {
      given.push_back(std::move(value));
    }
  }
  return Complete(given);
}

}  // namespace trainyard::tuning
