#include "tuning/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <utility>
#include <vector>

namespace trainyard::tuning {
namespace {

constexpr double kArmijo = 1e-4;
constexpr int kMaxBacktracks = 30;

struct Pair {
  Eigen::VectorXd s;  // x_{k+1} - x_k
  Eigen::VectorXd y;  // g_{k+1} - g_k
  double rho;         // 1 / y.s
};

// The two-loop recursion: -H g for the inverse Hessian approximation H the pairs define.
Eigen::VectorXd Direction(const std::deque<Pair>& pairs, const Eigen::VectorXd& gradient) {
  Eigen::VectorXd q = -gradient;
  std::vector<double> alpha(pairs.size());
  for (std::size_t i = pairs.size(); i-- > 0;) {
    alpha[i] = pairs[i].rho * pairs[i].s.dot(q);
    q -= alpha[i] * pairs[i].y;
  }
  if (!pairs.empty()) {
    const Pair& last = pairs.back();
    q *= last.s.dot(last.y) / last.y.squaredNorm();
  }
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const double beta = pairs[i].rho * pairs[i].y.dot(q);
    q += (alpha[i] - beta) * pairs[i].s;
  }
  return q;
}

}  // namespace

double MinimizeLbfgs(const Objective& f, Eigen::VectorXd& x, const LbfgsOptions& options) {
  Eigen::VectorXd gradient(x.size());
  double value = f(x, gradient);
  if (!std::isfinite(value)) {
    return value;
  }
  std::deque<Pair> pairs;
  Eigen::VectorXd next(x.size());
  Eigen::VectorXd next_gradient(x.size());
  for (int iteration = 0; iteration < options.max_iterations; ++iteration) {
    if (gradient.cwiseAbs().maxCoeff() < options.gradient_tolerance) {
      break;
    }
    Eigen::VectorXd direction = Direction(pairs, gradient);
    double slope = direction.dot(gradient);
    if (!(slope < 0)) {  // not a descent direction: restart from steepest descent
      pairs.clear();
      direction = -gradient;
      slope = -gradient.squaredNorm();
    }
    // The first step has no curvature to go by: move at most 1 in any coordinate.
    double step = pairs.empty() ? std::min(1.0, 1.0 / direction.cwiseAbs().maxCoeff()) : 1.0;
    double next_value = std::numeric_limits<double>::infinity();
    bool accepted = false;
    for (int backtrack = 0; backtrack < kMaxBacktracks; ++backtrack) {
      next = x + step * direction;
      next_value = f(next, next_gradient);
      if (std::isfinite(next_value) && next_value <= value + kArmijo * step * slope) {
        accepted = true;
        break;
      }
      step /= 2;
    }
    if (!accepted) {
      break;
    }
    Pair pair{.s = next - x, .y = next_gradient - gradient, .rho = 0};
    const double curvature = pair.s.dot(pair.y);
    if (curvature > 1e-12 * pair.y.squaredNorm()) {
      pair.rho = 1 / curvature;
      pairs.push_back(std::move(pair));
      if (static_cast<int>(pairs.size()) > options.memory) {
        pairs.pop_front();
      }
    }
    const double improvement = value - next_value;
    x = next;
    gradient = next_gradient;
    value = next_value;
    if (improvement <= options.value_tolerance * std::max(1.0, std::abs(value))) {
      break;
    }
  }
  return value;
}

}  // namespace trainyard::tuning
