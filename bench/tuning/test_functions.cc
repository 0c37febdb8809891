#include "test_functions.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include <fmt/format.h>

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

// Levy in any dimension; global minimum 0 at (1, ..., 1). Many shallow local minima.
double Levy(std::span<const double> x) {
  const auto w = [&](std::size_t i) { return 1 + (x[i] - 1) / 4; };
  const std::size_t n = x.size();
  const double first = std::sin(pi * w(0));
  double sum = first * first;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const double s = std::sin(pi * w(i) + 1);
    sum += (w(i) - 1) * (w(i) - 1) * (1 + 10 * s * s);
  }
  const double last = std::sin(2 * pi * w(n - 1));
  return sum + (w(n - 1) - 1) * (w(n - 1) - 1) * (1 + last * last);
}

// A study-shaped mixed space: x = (learning rate, layers, batch size, momentum, optimiser index).
// The best learning rate moves with the batch size (10^-2.5 at 64) and the optimisers differ by a
// constant; the minimum 0 is at (10^-2.5, 3, 64, 0.95, "adam"), inside every range.
double MixedStudy(std::span<const double> x) {
  static constexpr double kOptimiserCost[3] = {0.3, 0.0, 0.1};  // sgd, adam, rmsprop
  const double batch_octaves = std::log2(x[2]) - 6;
  const double lr = std::log10(x[0]) - (-2.5 + 0.3 * batch_octaves);
  const double momentum = std::log10(1 - x[3]) - std::log10(0.05);
  const double layers = x[1] - 3;
  return 2 * lr * lr + 0.3 * layers * layers + 0.5 * batch_octaves * batch_octaves +
         4 * momentum * momentum + kOptimiserCost[static_cast<int>(x[4])] + 0.2 * lr * layers;
}

model::ParameterSpec Param(std::string name, model::ParameterType type, double lo, double hi,
                           model::ScaleType scale) {
  model::ParameterSpec param;
  param.parameter_name = std::move(name);
  param.type = type;
  param.min_value = lo;
  param.max_value = hi;
  param.scale_type = scale;
  return param;
}

// x1..xd, each a DOUBLE over [lo, hi] (linear).
std::vector<model::ParameterSpec> Box(std::size_t dims, double lo, double hi) {
  std::vector<model::ParameterSpec> params;
  for (std::size_t i = 0; i < dims; ++i) {
    params.push_back(Param(fmt::format("x{}", i + 1), model::ParameterType::kDouble, lo, hi,
                           model::ScaleType::kUnitLinearScale));
  }
  return params;
}

std::vector<model::ParameterSpec> MixedParams() {
  using model::ParameterType;
  using model::ScaleType;
  std::vector<model::ParameterSpec> params = {
      Param("learning_rate", ParameterType::kDouble, 1e-5, 1, ScaleType::kUnitLogScale),
      Param("layers", ParameterType::kInteger, 1, 8, ScaleType::kUnitLinearScale),
      Param("batch_size", ParameterType::kDiscrete, 0, 0, ScaleType::kNone),
      Param("momentum", ParameterType::kDouble, 0.5, 0.999, ScaleType::kUnitReverseLogScale),
      Param("optimizer", ParameterType::kCategorical, 0, 0, ScaleType::kNone),
  };
  params[2].min_value.reset();
  params[2].max_value.reset();
  params[2].discrete_values = {16, 32, 64, 128, 256};
  params[4].min_value.reset();
  params[4].max_value.reset();
  params[4].categorical_values = {"sgd", "adam", "rmsprop"};
  return params;
}

}  // namespace

const std::vector<TestFunction>& TestFunctions() {
  static const std::vector<TestFunction> kFunctions = {
      {"branin", "Branin (2-D)", {Box(1, -5, 10)[0], Box(2, 0, 15)[1]}, 0.397887357729738, Branin},
      // The value at the published minimiser, to 6 digits -3.32237.
      {"hartmann6", "Hartmann-6 (6-D)", Box(6, 0, 1), -3.32236801141551, Hartmann6},
      // The standard domain [-5, 10]^d, not the narrower [-2, 2]^d some papers use.
      {"rosenbrock4", "Rosenbrock-4 (4-D)", Box(4, -5, 10), 0, Rosenbrock},
      {"ackley5", "Ackley-5 (5-D)", Box(5, -32.768, 32.768), 0, Ackley},
      {"mixed5", "Mixed study (5 params)", MixedParams(), 0, MixedStudy},
      {"hartmann6-noisy", "Hartmann-6, noise sd 0.1", Box(6, 0, 1), -3.32236801141551, Hartmann6,
       0.1},
      {"levy10", "Levy-10 (10-D)", Box(10, -10, 10), 0, Levy},
  };
  return kFunctions;
}

std::vector<double> ArgumentsOf(const TestFunction& function, std::span<const double> numbers,
                                std::span<const std::string> categories) {
  std::vector<double> x(function.params.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::vector<std::string>& values = function.params[i].categorical_values;
    x[i] = values.empty()
               ? numbers[i]
               : static_cast<double>(std::find(values.begin(), values.end(), categories[i]) -
                                     values.begin());
  }
  return x;
}

bool OnBound(const TestFunction& function, std::span<const double> numbers) {
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    const model::ParameterSpec& param = function.params[i];
    if (param.type == model::ParameterType::kDouble &&
        (numbers[i] == *param.min_value || numbers[i] == *param.max_value)) {
      return true;
    }
  }
  return false;
}

}  // namespace trainyard::bench
