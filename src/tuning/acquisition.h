// Expected improvement, the Bayesian suggester's acquisition function, computed in log space so
// that it stays finite and comparable far from the incumbent where the improvement underflows.
// Pure functions of their arguments.
#pragma once

namespace trainyard::tuning {

// E[max(f - best, 0)] for f ~ N(mean, stddev^2) (maximisation); stddev >= 0.
double ExpectedImprovement(double mean, double stddev, double best);

struct LogImprovement {
  double value = 0;     // log EI; -infinity only when stddev == 0 and mean <= best
  double d_mean = 0;    // d value / d mean
  double d_stddev = 0;  // d value / d stddev
};

// log E[max(f - best, 0)] and its derivatives, accurate (relative error ~1e-12) for any z =
// (mean - best) / stddev, including z far below zero where EI itself underflows.
LogImprovement LogExpectedImprovement(double mean, double stddev, double best);

}  // namespace trainyard::tuning
