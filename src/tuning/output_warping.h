// Output warping for the Gaussian-process suggester: observations are reshaped before the GP
// sees them so that a few very bad trials (a diverged run, a corner of a valley-shaped
// objective) do not set the GP's scale. Without it, standardising outputs such as Rosenbrock's
// (from 0 to 10^5 over the box) leaves every good trial within a hair of the mean, and the GP
// models the cliffs instead of the valley. Pure functions of their arguments.
#pragma once

#include <span>
#include <vector>

namespace trainyard::tuning {

// The standard normal distribution's quantile function: Phi^-1(p) for p in (0, 1), accurate to
// about 1e-15 relative; -infinity at 0 and +infinity at 1.
double NormalQuantile(double p);

// Half-rank compression of `values` (larger is better; all finite). The values at or above the
// median are kept as they are. Below it, distinct value k from the bottom (of d distinct values
// below the median, d + 1/2 when the median is itself a value) is given a place in a normal tail
// under the median, median + 2 s Phi^-1((k - 1/2) / (2 d)), with s the better half's
// root-mean-square distance from the median; a value further down than its place is raised to
// it, one above it is kept. So outliers are pulled in, by rank, and nothing is spread out. Order
// is kept, equal values stay equal, and so does the best value, which EI measures improvement
// against. Fewer than 3 values, or values all equal, are returned unchanged. (After Vizier's
// half-rank output warping, which also moves values up to their places.)
std::vector<double> HalfRankWarp(std::span<const double> values);

}  // namespace trainyard::tuning
