#include "tuning/acquisition.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace trainyard::tuning {
namespace {

// Below this z, use h(z)'s asymptotic series. Above it h(z) = z Phi(z) + phi(z) loses only about
// log10(z^2) < 3 digits to cancellation, and below it the series' first omitted term is < 1e-11.
constexpr double kAsymptoticBelow = -25;

double LogNormalDensity(double z) {
  return -0.5 * z * z - 0.5 * std::log(2 * std::numbers::pi);
}

double NormalCdf(double z) {
  return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

}  // namespace

double ExpectedImprovement(double mean, double stddev, double best) {
  if (!(stddev > 0)) {
    return std::max(mean - best, 0.0);
  }
  const double z = (mean - best) / stddev;
  return stddev * (z * NormalCdf(z) + std::exp(LogNormalDensity(z)));
}

LogImprovement LogExpectedImprovement(double mean, double stddev, double best) {
  if (!(stddev > 0)) {
    const double gain = mean - best;
    if (gain > 0) {
      return {.value = std::log(gain), .d_mean = 1 / gain, .d_stddev = 0};
    }
    return {.value = -std::numeric_limits<double>::infinity(), .d_mean = 0, .d_stddev = 0};
  }
  // EI = stddev h(z) with h(z) = z Phi(z) + phi(z); dEI/dmean = Phi(z), dEI/dstddev = phi(z).
  const double z = (mean - best) / stddev;
  const double log_phi = LogNormalDensity(z);
  if (z >= kAsymptoticBelow) {
    const double cdf = NormalCdf(z);
    const double phi = std::exp(log_phi);
    const double h = z * cdf + phi;
    return {.value = std::log(stddev) + std::log(h),
            .d_mean = cdf / (stddev * h),
            .d_stddev = phi / (stddev * h)};
  }
  // Phi(z) = phi(z)/|z| (1 - t + 3t^2 - 15t^3 + ...) with t = 1/z^2, so
  // h(z) = phi(z) t (1 - 3t + 15t^2 - 105t^3 + ...); the coefficients are odd double factorials.
  const double t = 1 / (z * z);
  const double h_series =
      1 + t * (-3 + t * (15 + t * (-105 + t * (945 + t * (-10395 + t * 135135)))));
  const double cdf_series = 1 + t * (-1 + t * (3 + t * (-15 + t * (105 + t * (-945 + t * 10395)))));
  const double density_over_h = 1 / (t * h_series);
  const double cdf_over_density = cdf_series / -z;
  return {.value = std::log(stddev) + log_phi + std::log(t) + std::log(h_series),
          .d_mean = cdf_over_density * density_over_h / stddev,
          .d_stddev = density_over_h / stddev};
}

}  // namespace trainyard::tuning
