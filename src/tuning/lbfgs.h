// A small L-BFGS minimiser for smooth objectives of a few dozen variables (the GP's
// hyperparameters). Internal to tuning/; deterministic.
#pragma once

#include <functional>

#include <Eigen/Core>

namespace trainyard::tuning {

struct LbfgsOptions {
  int max_iterations = 60;
  int memory = 8;
  double gradient_tolerance = 1e-5;  // stop when max |g_i| falls below
  double value_tolerance = 1e-9;     // stop when an iteration improves f by less (relative)
};

// The objective's value at x, its gradient written to `gradient` (same size as x). A value that
// is not finite marks x as outside the domain: the line search steps back.
using Objective = std::function<double(const Eigen::VectorXd& x, Eigen::VectorXd& gradient)>;

// Minimises `f` from `x` (updated in place to the best point found); returns f there.
double MinimizeLbfgs(const Objective& f, Eigen::VectorXd& x, const LbfgsOptions& options = {});

}  // namespace trainyard::tuning
