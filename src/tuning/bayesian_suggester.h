// The default algorithm (ALGORITHM_UNSPECIFIED): Bayesian optimisation with a Gaussian process
// and expected improvement, as tuning/suggest.h describes. Internal to tuning/: callers use
// MakeSuggester.
#pragma once

#include <cstdint>
#include <memory>

#include "model/job.h"
#include "tuning/conditional_space.h"
#include "tuning/suggest.h"

namespace trainyard::tuning {

// Over the canonical points of `space` (conditional_space.h): a space without conditions is
// searched as it is.
std::unique_ptr<Suggester> MakeBayesianSuggester(const ConditionalSpace& space,
                                                 model::GoalType goal, std::uint64_t seed);

}  // namespace trainyard::tuning
