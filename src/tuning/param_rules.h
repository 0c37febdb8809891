// The rules every parameter of a study obeys, `trainingInput.hyperparameters.params`
// (docs/reference/ai-platform-training.md §2.4): the one home of what validation reports and
// `SearchSpace::FromSpec` refuses. Pure.
//
// A parameter needs a unique, non-empty name usable as the trainer's command-line flag
// ([A-Za-z_][A-Za-z0-9_-]*, §9.1) and a type. DOUBLE and INTEGER need a finite range
// minValue < maxValue (whole numbers for INTEGER, positive with the LOG scales). CATEGORICAL needs
// its values, each once, and no range or scale. DISCRETE needs 1..1000 finite, strictly
// increasing values (positive with the LOG scales). The algorithm's restrictions (GRID_SEARCH)
// and the trial counts are validation's, not these.
#pragma once

#include <vector>

#include "base/status.h"
#include "model/job.h"

namespace trainyard::tuning {

// Every violation of `spec.params`, with fields `trainingInput.hyperparameters.params` (none
// given) and `trainingInput.hyperparameters.params[i]…`, parameter by parameter in rule order
// (validation sorts them into field order). Empty when the parameters are usable.
std::vector<FieldViolation> CheckParams(const model::HyperparameterSpec& spec);

// Whether `value` is a finite whole number, as an INTEGER parameter's values and bounds are.
bool IsWhole(double value);

}  // namespace trainyard::tuning
