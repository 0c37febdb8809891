// A study's search space, from `trainingInput.hyperparameters.params`
// (docs/reference/ai-platform-training.md §2.4, §9.1), and the one mapping between parameter values
// and the unit cube the optimisers work in. Pure.
//
// Each parameter is one or more unit coordinates:
//   DOUBLE      one coordinate: [min, max] scaled linearly (UNIT_LINEAR_SCALE, or none), by log
//               (UNIT_LOG_SCALE: u = log(x/min)/log(max/min)) or reverse log
//               (UNIT_REVERSE_LOG_SCALE: u = 1 - log((max+min-x)/min)/log(max/min)); min > 0 for
//               the log scales.
//   INTEGER     one coordinate as DOUBLE over [min - 0.5, max + 0.5], rounded to the nearest
//   integer
//               (so every integer gets an equal share of the cube); log scales as DOUBLE.
//   DISCRETE    one coordinate over the sorted values' indices (each an equal share), or, with a
//               scale type, over their scaled positions, snapped to the nearest value.
//   CATEGORICAL one coordinate per value (one-hot; the largest coordinate wins), so no false order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/job.h"

namespace trainyard::tuning {

// One parameter's value in a trial.
struct ParameterValue {
  std::string name;
  double number = 0;     // DOUBLE, INTEGER (integral), DISCRETE
  std::string category;  // CATEGORICAL

  // As a trial's `hyperparameters` map and the trainer's `--name=value` show it: integers without
  // a decimal point ("3"), doubles in the shortest form that reads back exactly ("0.01", "1e-05"),
  // categories as they are.
  std::string Text() const;

  friend bool operator==(const ParameterValue&, const ParameterValue&) = default;
};

// One trial's parameters, in the order of `params`.
using Assignment = std::vector<ParameterValue>;

class SearchSpace {
 public:
  // INVALID_ARGUMENT with field violations (`trainingInput.hyperparameters.params[i]…`) for what
  // validation would refuse too (an empty space, min > max, a log scale with min <= 0, a
  // CATEGORICAL without values, duplicate names, …).
  static Result<SearchSpace> FromSpec(const model::HyperparameterSpec& spec);

  const std::vector<model::ParameterSpec>& params() const { return params_; }
  // How many unit coordinates a point has (CATEGORICAL parameters count one per value).
  std::size_t unit_dimensions() const { return unit_dimensions_; }

  // The assignment at `unit` (size unit_dimensions(), each in [0, 1]; values outside are
  // clamped), snapped to what each parameter allows.
  Assignment FromUnit(std::span<const double> unit) const;
  // The unit point of `assignment` (the centre of its share for INTEGER and DISCRETE; 1 for the
  // chosen category's coordinate, 0 for the others). INVALID_ARGUMENT naming the parameter when
  // a value is not in the space (a resumed study's trial from another space).
  Result<std::vector<double>> ToUnit(const Assignment& assignment) const;

  // Reads a trial's `hyperparameters` map (name → text) back into an assignment.
  // INVALID_ARGUMENT naming the parameter when one is missing or does not parse.
  Result<Assignment> Parse(const std::vector<std::pair<std::string, std::string>>& values) const;

  // Every point of a grid over INTEGER, DISCRETE and CATEGORICAL parameters, in lexicographic
  // order of `params` (the last parameter varies fastest), at most `limit` of them.
  // INVALID_ARGUMENT naming the first DOUBLE parameter: "GRID_SEARCH cannot enumerate DOUBLE
  // parameter lr; give it discrete values (type DISCRETE) instead."
  Result<std::vector<Assignment>> Grid(std::size_t limit) const;

 private:
  explicit SearchSpace(std::vector<model::ParameterSpec> params);
  std::vector<model::ParameterSpec> params_;
  std::size_t unit_dimensions_ = 0;
};

}  // namespace trainyard::tuning
