// Multi-objective studies (Vertex AI's studySpec.metrics with several entries), pure and
// deterministic.
//
// Suggestions follow ParEGO (Knowles 2006): each suggestion draws a weight vector on the simplex
// from a stream seeded by (the study's seed, how many trials exist), normalises every objective
// over the completed trials to [0, 1] with 0 its best (its goal gives the sign), turns each trial
// into one augmented Chebyshev value, max_j(w_j f_j) + rho * sum_j(w_j f_j), to minimise, and
// asks the study's single-objective algorithm for a point on that history. Over many
// suggestions the weights sweep the whole Pareto front instead of one trade-off. An objective
// with one value over the trials (one trial, or all equal) normalises to 0 everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "model/job.h"
#include "tuning/suggest.h"

namespace trainyard::tuning {

// The augmented term's weight: small, so the max term decides and ties on it are broken towards
// points that are better overall.
inline constexpr double kChebyshevRho = 0.05;

// The trials of the Pareto front: indices of the rows of `values` (each a trial's value of every
// metric, parallel to `goals`) that no other row dominates (at least as good in every metric and
// better in one, "better" as each metric's goal says), in order. Equal rows are all kept.
std::vector<std::size_t> ParetoFront(std::span<const std::vector<double>> values,
                                     std::span<const model::GoalType> goals);

// The weights of the suggestion made when the study has `trial_count` trials: `objectives`
// positive numbers summing to 1, uniform on the simplex, the same for the same arguments.
std::vector<double> ScalarisationWeights(std::uint64_t seed, std::size_t trial_count,
                                         std::size_t objectives);

// Each row's augmented Chebyshev value under `weights` (parallel to `goals`), after normalising
// every objective over the rows; lower is better.
std::vector<double> Scalarise(std::span<const std::vector<double>> values,
                              std::span<const model::GoalType> goals,
                              std::span<const double> weights);

// `single` (made to MINIMIZE) run on scalarised histories: each observation's objective then
// Observation::more are its values of `goals`, in order. An observation without a value for
// every goal is passed as a point not to try again, not as an observation.
std::unique_ptr<Suggester> MakeScalarisingSuggester(std::vector<model::GoalType> goals,
                                                    std::uint64_t seed,
                                                    std::unique_ptr<Suggester> single);

}  // namespace trainyard::tuning
