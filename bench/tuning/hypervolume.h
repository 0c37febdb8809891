// Hypervolume in two objectives, the quality measure of the benchmark's multi-objective studies:
// the area a set of points dominates (both objectives minimised) up to a reference point, and a
// study's hypervolume regret as its trials come in. One definition for bench_tuning's own runs
// and the values its evaluator gives the peers.
#pragma once

#include <array>
#include <span>
#include <vector>

namespace trainyard::bench {

// The area of the union of the boxes [p0, r0] x [p1, r1] over the points p (r the reference);
// a point not below the reference in both objectives adds nothing. 0 for no points.
double Hypervolume(std::span<const std::array<double, 2>> points,
                   const std::array<double, 2>& reference);

// The hypervolume regret of a study: `max_hypervolume` (what the Pareto front dominates) minus
// the hypervolume of the trials so far.
class HypervolumeRegret {
 public:
  HypervolumeRegret(const std::array<double, 2>& reference, double max_hypervolume)
      : reference_(reference), max_hypervolume_(max_hypervolume) {}

  // The regret once the trial with these (noise-free) values is added.
  double Add(const std::array<double, 2>& values);

 private:
  std::array<double, 2> reference_;
  double max_hypervolume_;
  std::vector<std::array<double, 2>> points_;
};

}  // namespace trainyard::bench
