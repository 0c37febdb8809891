// Conditional parameters, as Vertex AI's studySpec has them (`conditionalParameterSpecs`): a
// parameter that is active only when its parent's value is in a given set. Pure.
//
// The suggesters work on the flat space of all parameters (`flat()`): a suggestion is a full
// assignment, and the trial gets only its active parameters (`Restrict`). A trial read back is
// completed with a fixed stand-in for each inactive parameter (`Complete`: its range's low end,
// first discrete value or first category), so that all trials that leave a branch off look alike
// to the GP there and the branch's own parameters are learnt from the trials that took it.
//
// A parent is DISCRETE, INTEGER or CATEGORICAL and comes before its children in `params` (as a
// studySpec's nesting, flattened depth first, lists them); a child may be a parent in turn. A
// space without conditions is the flat space: the study of an ml v1 job is one too.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/job.h"
#include "model/job_extras.h"
#include "tuning/search_space.h"

namespace trainyard::tuning {

class ConditionalSpace {
 public:
  // `conditions` name their parameters; a parameter without one is always active (no
  // conditions: the flat space itself). INVALID_ARGUMENT with field violations
  // (`parameters[i].condition`, i the child's index) for a bad space, a condition naming no
  // parameter or given twice, a parent that is not before its child or not
  // DISCRETE/INTEGER/CATEGORICAL, or a condition value that is not one of the parent's values.
  static Result<ConditionalSpace> Make(const model::HyperparameterSpec& spec,
                                       std::span<const model::ParameterCondition> conditions);

  // `flat` as a space without conditions.
  static ConditionalSpace Unconditional(SearchSpace flat);

  const SearchSpace& flat() const { return flat_; }
  // Whether any parameter has a condition.
  bool conditional() const;

  // Which parameters of `full` (a flat assignment) are active: those without a condition, and
  // those whose parent is active with a value in the condition's set.
  std::vector<bool> Active(const Assignment& full) const;
  // The active parameters of `full`, in order: what a trial gets.
  Assignment Restrict(const Assignment& full) const;
  // `full` with each inactive parameter at its stand-in: the one flat point of its trial.
  Assignment Canonical(const Assignment& full) const;
  // A flat assignment from a trial's parameters (by name; any order): the active ones as given,
  // each inactive one as its stand-in. INVALID_ARGUMENT naming the parameter when an active one
  // is missing.
  Result<Assignment> Complete(const Assignment& trial) const;
  // A trial's `hyperparameters` map (name → text), completed as `Complete` does.
  // INVALID_ARGUMENT naming the parameter when a value does not parse or an active one is missing.
  Result<Assignment> Parse(const std::vector<std::pair<std::string, std::string>>& values) const;

 private:
  // A condition with its parent resolved to an index into the parameters.
  struct Condition {
    std::size_t parent = 0;
    std::vector<double> parent_values;
    std::vector<std::string> parent_categories;
  };
  ConditionalSpace(SearchSpace flat, std::vector<std::optional<Condition>> conditions)
      : flat_(std::move(flat)), conditions_(std::move(conditions)) {}
  static bool Matches(const Condition& condition, const ParameterValue& parent);
  SearchSpace flat_;
  std::vector<std::optional<Condition>> conditions_;  // one per parameter
};

}  // namespace trainyard::tuning
