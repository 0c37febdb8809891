// Maximising expected improvement over the valid points of a search space: the Bayesian
// suggester's inner loop. Internal to tuning/. Pure and deterministic given `rng`.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "tuning/conditional_space.h"
#include "tuning/gaussian_process.h"
#include "tuning/random.h"
#include "tuning/search_space.h"
#include "tuning/suggest_support.h"

namespace trainyard::tuning {

// The untried point of `space` (its flat space's points, each canonical: inactive parameters at
// their stand-ins) with the largest expected improvement over `best` under `gp` (whose
// coordinates are the flat space's unit coordinates; larger is better). The search never leaves
// the canonical points: EI at a point whose inactive parameters sit elsewhere measures the GP's
// ignorance of points no trial can be, and the study's point would be another one. Candidates are
// uniform random points and perturbations of `incumbents` (unit points of the best observations;
// reflected at the bounds), each snapped to a valid canonical point (FromUnit, Canonical, then
// ToUnit, so integers, discrete values and categories are what the GP sees); the best few are
// refined by projected gradient ascent on the active DOUBLE coordinates (steps reflected at the
// bounds) and by moves to neighbouring values of the other active parameters. None only when every
// candidate has been tried. `u` folded back into [0, 1] at the bound it crossed (-0.1 -> 0.1, 1.2
// -> 0.8), how candidate perturbations and gradient steps leave the cube. Clamping instead put
// about half of the neighbours of a point near an edge exactly on the edge, and studies kept
// proposing edge points (bench/RESULTS.md, "Robustness": 33-92% of a Hartmann-6 seed's trials had a
// coordinate on a bound, none after).
double ReflectIntoUnit(double u);

std::optional<Assignment> MaximizeExpectedImprovement(
    const ConditionalSpace& space, const GaussianProcess& gp, double best,
    std::span<const std::vector<double>> incumbents, const TriedPoints& tried, Rng& rng);

}  // namespace trainyard::tuning
