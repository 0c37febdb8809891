#include "test_functions.h"

#include <cmath>
#include <numbers>

namespace trainyard::bench {
namespace {

using std::numbers::pi;

// x1 in [-5, 10], x2 in [0, 15]; three global minima of 0.397887357729738.
double Branin(std::span<const double> x) {
  constexpr double kA = 1;
  constexpr double kB = 5.1 / (4 * pi * pi);
  constexpr double kC = 5 / pi;
  constexpr double kR = 6;
  constexpr double kS = 10;
  constexpr double kT = 1 / (8 * pi);
  const double inner = x[1] - kB * x[0] * x[0] + kC * x[0] - kR;
  return kA * inner * inner + kS * (1 - kT) * std::cos(x[0]) + kS;
}

// [0, 1]^6; global minimum -3.32237 at (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573).
double Hartmann6(std::span<const double> x) {
  static constexpr double kAlpha[4] = {1.0, 1.2, 3.0, 3.2};
  static constexpr double kA[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                      {0.05, 10, 17, 0.1, 8, 14},
                                      {3, 3.5, 1.7, 10, 17, 8},
                                      {17, 8, 0.05, 10, 0.1, 14}};
  static constexpr double kP[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                      {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                      {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                      {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double exponent = 0;
    for (int j = 0; j < 6; ++j) {
      const double d = x[j] - kP[i][j];
      exponent += kA[i][j] * d * d;
    }
    sum += kAlpha[i] * std::exp(-exponent);
  }
  return -sum;
}

// Any dimension; global minimum 0 at (1, ..., 1).
double Rosenbrock(std::span<const double> x) {
  double sum = 0;
  for (std::size_t i = 0; i + 1 < x.size(); ++i) {
    const double a = x[i + 1] - x[i] * x[i];
    const double b = 1 - x[i];
    sum += 100 * a * a + b * b;
  }
  return sum;
}

// Any dimension; global minimum 0 at the origin.
double Ackley(std::span<const double> x) {
  constexpr double kA = 20;
  constexpr double kB = 0.2;
  constexpr double kC = 2 * pi;
  double squares = 0;
  double cosines = 0;
  for (const double xi : x) {
    squares += xi * xi;
    cosines += std::cos(kC * xi);
  }
  const auto n = static_cast<double>(x.size());
  return -kA * std::exp(-kB * std::sqrt(squares / n)) - std::exp(cosines / n) + kA +
         std::numbers::e;
}

}  // namespace

const std::vector<TestFunction>& TestFunctions() {
  static const std::vector<TestFunction> kFunctions = {
      {"branin", "Branin (2-D)", {{-5, 10}, {0, 15}}, 0.397887357729738, Branin},
      // The value at the published minimiser, to 6 digits -3.32237.
      {"hartmann6", "Hartmann-6 (6-D)", std::vector<Interval>(6, {0, 1}), -3.32236801141551,
       Hartmann6},
      // The standard domain [-5, 10]^d, not the narrower [-2, 2]^d some papers use.
      {"rosenbrock4", "Rosenbrock-4 (4-D)", std::vector<Interval>(4, {-5, 10}), 0, Rosenbrock},
      {"ackley5", "Ackley-5 (5-D)", std::vector<Interval>(5, {-32.768, 32.768}), 0, Ackley},
  };
  return kFunctions;
}

}  // namespace trainyard::bench
