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
// studySpec's nesting lists them); a child may be a parent in turn.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/job.h"
#include "tuning/search_space.h"

namespace trainyard::tuning {

// When a parameter is active: its parent's value is one of `parent_values` (a DISCRETE or INTEGER
// parent: Vertex's parentDiscreteValues / parentIntValues) or `parent_categories` (a CATEGORICAL
// parent: parentCategoricalValues).
struct ParentCondition {
  std::size_t parent = 0;  // index into the space's parameters
  std::vector<double> parent_values;
  std::vector<std::string> parent_categories;
};

class ConditionalSpace {
 public:
  // `conditions[i]` is parameter i's condition (none: always active); as many as `spec.params`.
  // INVALID_ARGUMENT with field violations (`…params[i]…`) for a bad space, a parent that is
  // not before its child or not DISCRETE/INTEGER/CATEGORICAL, or a condition value that is not
  // one of the parent's values.
  static Result<ConditionalSpace> Make(const model::HyperparameterSpec& spec,
                                       std::vector<std::optional<ParentCondition>> conditions);

  const SearchSpace& flat() const { return flat_; }

  // Which parameters of `full` (a flat assignment) are active: those without a condition, and
  // those whose parent is active with a value in the condition's set.
  std::vector<bool> Active(const Assignment& full) const;
  // The active parameters of `full`, in order: what a trial gets.
  Assignment Restrict(const Assignment& full) const;
  // A flat assignment from a trial's parameters (by name; any order): the active ones as given,
  // each inactive one as its stand-in. INVALID_ARGUMENT naming the parameter when an active one
  // is missing.
  Result<Assignment> Complete(const Assignment& trial) const;

 private:
  ConditionalSpace(SearchSpace flat, std::vector<std::optional<ParentCondition>> conditions)
      : flat_(std::move(flat)), conditions_(std::move(conditions)) {}
  SearchSpace flat_;
  std::vector<std::optional<ParentCondition>> conditions_;
};

}  // namespace trainyard::tuning
