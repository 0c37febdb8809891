#include "hypervolume.h"

#include <algorithm>

namespace trainyard::bench {

double Hypervolume(std::span<const std::array<double, 2>> points,
                   const std::array<double, 2>& reference) {
  std::vector<std::array<double, 2>> inside;
  for (const std::array<double, 2>& point : points) {
    if (point[0] < reference[0] && point[1] < reference[1]) {
      inside.push_back(point);
    }
  }
  // By the first objective: each point that lowers the best second value so far adds the strip
  // between the two second values, from its first value to the reference.
  std::ranges::sort(inside);
  double volume = 0;
  double ceiling = reference[1];
  for (const std::array<double, 2>& point : inside) {
    if (point[1] < ceiling) {
      volume += (reference[0] - point[0]) * (ceiling - point[1]);
      ceiling = point[1];
    }
  }
  return volume;
}

double HypervolumeRegret::Add(const std::array<double, 2>& values) {
  points_.push_back(values);
  return max_hypervolume_ - Hypervolume(points_, reference_);
}

}  // namespace trainyard::bench
