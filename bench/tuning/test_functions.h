// The benchmark's test functions (Surjanovic & Bingham, "Virtual Library of Simulation
// Experiments"): each with its box domain and its known global minimum, to be minimised.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace trainyard::bench {

struct Interval {
  double lo = 0;
  double hi = 0;
};

struct TestFunction {
  std::string name;   // as the CSV and the command line spell it: "branin"
  std::string label;  // as the tables show it: "Branin (2-D)"
  std::vector<Interval> domain;
  double minimum = 0;  // the global minimum's value
  double (*evaluate)(std::span<const double> x) = nullptr;
};

// Branin, Hartmann-6, Rosenbrock-4 and Ackley-5, in that order.
const std::vector<TestFunction>& TestFunctions();

}  // namespace trainyard::bench
