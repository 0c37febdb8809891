// Suggestion algorithms for hyperparameter-tuning studies (docs/reference/ai-platform-training.md
// §9): what the next trials try, given the trials that completed (with their objective) and the
// ones still running. Pure and deterministic: the same space, seed and history give the same
// suggestions.
//
//   GRID_SEARCH            SearchSpace::Grid in order, skipping points already tried or running;
//                          nothing once the grid is exhausted.
//   RANDOM_SEARCH          independent uniform points of the unit cube (so log-scaled parameters
//                          are sampled log-uniformly), from a generator seeded by (seed, how
//                          many trials exist).
//   ALGORITHM_UNSPECIFIED  Bayesian optimisation with a Gaussian process
//   (tuning/gaussian_process.h):
//                          the first max(2, d+1) trials are a scrambled space-filling design; then
//                          a GP with a Matérn-5/2 kernel and one length scale per unit coordinate,
//                          fitted by maximising the log marginal likelihood, and expected
//                          improvement maximised over the unit cube (random and local search).
//                          Running trials are "believed" at the posterior mean (kriging believer),
//                          so parallel suggestions spread out instead of collapsing onto one point.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/status.h"
#include "model/job.h"
#include "tuning/search_space.h"

namespace trainyard::tuning {

struct Observation {
  Assignment params;
  double objective = 0;  // the final metric, as reported (the goal says which way is better)
  // A multi-objective study's other metrics, in the study's order (tuning/multi_objective.h);
  // empty for one metric.
  std::vector<double> more;
};

struct StudyHistory {
  std::vector<Observation> completed;  // trials with a final metric, in trial order
  std::vector<Assignment> running;     // trials started and not finished (and failed ones,
                                       // which should not be tried again)
};

class Suggester {
 public:
  virtual ~Suggester() = default;
  // Up to `count` new assignments; fewer (maybe none) only when the space is exhausted (grid).
  virtual Result<std::vector<Assignment>> Suggest(const StudyHistory& history, int count) = 0;
};

// INVALID_ARGUMENT for GRID_SEARCH over a space with a DOUBLE parameter (SearchSpace::Grid's
// message) or for an algorithm trainyard does not run.
Result<std::unique_ptr<Suggester>> MakeSuggester(const SearchSpace& space,
                                                 model::Algorithm algorithm, model::GoalType goal,
                                                 std::uint64_t seed);

}  // namespace trainyard::tuning
