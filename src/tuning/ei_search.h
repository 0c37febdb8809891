// Maximising expected improvement over the valid points of a search space: the Bayesian
// suggester's inner loop. Internal to tuning/. Pure and deterministic given `rng`.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "tuning/gaussian_process.h"
#include "tuning/random.h"
#include "tuning/search_space.h"
#include "tuning/suggest_support.h"

namespace trainyard::tuning {

// The untried point of `space` with the largest expected improvement over `best` under `gp`
// (whose coordinates are the space's unit coordinates; larger is better). Candidates are uniform
// random points and perturbations of `incumbents` (unit points of the best observations; reflected
// at the bounds), each snapped to a valid point (FromUnit then ToUnit, so integers, discrete values
// and categories are what the GP sees); the best few are refined by projected gradient ascent on
// the DOUBLE coordinates (steps reflected at the bounds) and by moves to neighbouring values of the
// others. None only when every candidate has been tried. `u` folded back into [0, 1] at the bound
// it crossed (-0.1 -> 0.1, 1.2 -> 0.8), how candidate perturbations and gradient steps leave the
// cube. Clamping instead put about half of the neighbours of a point near an edge exactly on the
// edge, and studies kept proposing edge points (bench/RESULTS.md, "Robustness": 33-92% of a
// Hartmann-6 seed's trials had a coordinate on a bound, none after).
double ReflectIntoUnit(double u);

std::optional<Assignment> MaximizeExpectedImprovement(
    const SearchSpace& space, const GaussianProcess& gp, double best,
    std::span<const std::vector<double>> incumbents, const TriedPoints& tried, Rng& rng);

}  // namespace trainyard::tuning
