// The three documented scalings between a parameter's range and [0, 1]
// (docs/reference/ai-platform-training.md §2.4), shared by the search space's coordinates. Pure,
// inline and exact at both ends.
#pragma once

#include <algorithm>
#include <cmath>

#include "model/job.h"

namespace trainyard::tuning {

// Where `x` in [lo, hi] sits in [0, 1] under `scale` (NONE is linear); lo > 0 for the log scales.
//   UNIT_LOG_SCALE          u = log(x/lo) / log(hi/lo)
//   UNIT_REVERSE_LOG_SCALE  u = 1 - log((hi+lo-x)/lo) / log(hi/lo)
inline double ScaledPosition(double x, double lo, double hi, model::ScaleType scale) {
  double u = 0;
  switch (scale) {
    case model::ScaleType::kUnitLogScale:
      u = std::log(x / lo) / std::log(hi / lo);
      break;
    case model::ScaleType::kUnitReverseLogScale:
      u = 1 - std::log((hi + lo - x) / lo) / std::log(hi / lo);
      break;
    case model::ScaleType::kNone:
    case model::ScaleType::kUnitLinearScale:
      u = (x - lo) / (hi - lo);
      break;
  }
  return std::clamp(u, 0.0, 1.0);
}

// The inverse of `ScaledPosition`: the value at `u` in [0, 1], within [lo, hi].
inline double ScaledValue(double u, double lo, double hi, model::ScaleType scale) {
  double x = 0;
  if (u <= 0) {
    return lo;
  }
  if (u >= 1) {
    return hi;
  }
  switch (scale) {
    case model::ScaleType::kUnitLogScale:
      x = lo * std::exp(u * std::log(hi / lo));
      break;
    case model::ScaleType::kUnitReverseLogScale:
      x = hi + lo - lo * std::exp((1 - u) * std::log(hi / lo));
      break;
    case model::ScaleType::kNone:
    case model::ScaleType::kUnitLinearScale:
      x = lo + u * (hi - lo);
      break;
  }
  return std::clamp(x, lo, hi);
}

}  // namespace trainyard::tuning
