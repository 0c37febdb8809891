// Parameter specs and spaces for the tuning tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/job.h"
#include "tuning/search_space.h"

namespace trainyard::tuning::test_spaces {

using model::ParameterSpec;
using model::ParameterType;
using model::ScaleType;

inline ParameterSpec Double(std::string name, double min, double max,
                            ScaleType scale = ScaleType::kUnitLinearScale) {
  return {.parameter_name = std::move(name),
          .type = ParameterType::kDouble,
          .min_value = min,
          .max_value = max,
          .scale_type = scale};
}

inline ParameterSpec Integer(std::string name, double min, double max,
                             ScaleType scale = ScaleType::kNone) {
  return {.parameter_name = std::move(name),
          .type = ParameterType::kInteger,
          .min_value = min,
          .max_value = max,
          .scale_type = scale};
}

inline ParameterSpec Discrete(std::string name, std::vector<double> values,
                              ScaleType scale = ScaleType::kNone) {
  return {.parameter_name = std::move(name),
          .type = ParameterType::kDiscrete,
          .discrete_values = std::move(values),
          .scale_type = scale};
}

inline ParameterSpec Categorical(std::string name, std::vector<std::string> values) {
  return {.parameter_name = std::move(name),
          .type = ParameterType::kCategorical,
          .categorical_values = std::move(values)};
}

inline model::HyperparameterSpec Spec(std::vector<ParameterSpec> params) {
  model::HyperparameterSpec spec;
  spec.params = std::move(params);
  return spec;
}

// The space of `params`, which must be valid.
inline SearchSpace Space(std::vector<ParameterSpec> params) {
  return *SearchSpace::FromSpec(Spec(std::move(params)));
}

inline ParameterValue Number(std::string name, double number) {
  return {.name = std::move(name), .number = number};
}

inline ParameterValue Category(std::string name, std::string category) {
  return {.name = std::move(name), .category = std::move(category)};
}

}  // namespace trainyard::tuning::test_spaces
