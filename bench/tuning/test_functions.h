// The benchmark's test functions: the standard ones (Surjanovic & Bingham, "Virtual Library of
// Simulation Experiments") over their boxes, plus spaces shaped like real studies (mixed parameter
// types, noise, more dimensions). Each has its parameters, its known global minimum, to be
// minimised, and the level of the noise its observations carry.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "model/job.h"

namespace trainyard::bench {

struct TestFunction {
  std::string name;   // as the CSV and the command line spell it: "branin"
  std::string label;  // as the tables show it: "Branin (2-D)"
  // The study's parameters, as a HyperparameterSpec lists them.
  std::vector<model::ParameterSpec> params;
  double minimum = 0;  // the global minimum of the noise-free function
  // At x[i] = parameter i's value (a CATEGORICAL one's index in its values); noise-free.
  double (*evaluate)(std::span<const double> x) = nullptr;
  // The standard deviation of the Gaussian noise each observation carries (0: none). Regret is
  // always of the noise-free value at the point with the best observation.
  double noise = 0;
};

// Branin, Hartmann-6, Rosenbrock-4, Ackley-5, then the added ones (see test_functions.cc).
const std::vector<TestFunction>& TestFunctions();

// x as `evaluate` takes it, from one trial's parameter values (numbers, or category names).
std::vector<double> ArgumentsOf(const TestFunction& function, std::span<const double> numbers,
                                std::span<const std::string> categories);

}  // namespace trainyard::bench
