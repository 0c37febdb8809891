// The benchmark's test functions: the standard ones (Surjanovic & Bingham, "Virtual Library of
// Simulation Experiments") over their boxes, plus spaces shaped like real studies (mixed parameter
// types, noise, more dimensions). Each has its parameters, its known global minimum, to be
// minimised, the level of the noise its observations carry and, for a conditional space, its
// parameters' conditions. A two-objective function (a multi-objective study's test) also has its
// second objective, a reference point and the largest hypervolume its Pareto front dominates.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "model/job.h"
#include "model/job_extras.h"
#include "tuning/search_space.h"

namespace trainyard::bench {

// The second objective of a two-objective function (both minimised; no noise) and what its
// hypervolume regret is measured against (bench/tuning/hypervolume.h).
struct TwoObjectives {
  double (*second)(std::span<const double> x) = nullptr;  // noise-free, as `evaluate`
  std::array<double, 2> reference{};                      // the hypervolume's reference point
  double max_hypervolume = 0;  // dominated by the whole Pareto front up to `reference`
};

struct TestFunction {
  std::string name;   // as the CSV and the command line spell it: "branin"
  std::string label;  // as the tables show it: "Branin (2-D)"
  // The study's parameters, as a HyperparameterSpec lists them.
  std::vector<model::ParameterSpec> params;
  double minimum = 0;  // the global minimum of the noise-free function
  // At x[i] = parameter i's value (a CATEGORICAL one's index in its values; NaN for a parameter
  // the trial does not have, which the function must not read); noise-free.
  double (*evaluate)(std::span<const double> x) = nullptr;
  // The standard deviation of the Gaussian noise each observation carries (0: none). Regret is
  // always of the noise-free value at the point with the best observation.
  double noise = 0;
  // The conditional parameters (as a Vertex studySpec's conditionalParameterSpecs give them); none
  // for a flat space.
  std::vector<model::ParameterCondition> conditions;
  // Set for a function with two objectives, run as a multi-objective study: `evaluate` is the
  // first, `minimum` is not used, and regret is hypervolume regret (max_hypervolume minus the
  // hypervolume the trials so far dominate).
  std::optional<TwoObjectives> two_objectives;
};

// Branin, Hartmann-6, Rosenbrock-4, Ackley-5, then the added ones, the two-objective ones last
// (see test_functions.cc).
const std::vector<TestFunction>& TestFunctions();

// x as `evaluate` takes it, from one trial's parameters (by name, any order; a parameter the
// trial does not have is NaN).
std::vector<double> ArgumentsOf(const TestFunction& function, const tuning::Assignment& trial);

// Whether some DOUBLE parameter's value in x (as ArgumentsOf gives it) is exactly one of its
// bounds.
bool OnBound(const TestFunction& function, std::span<const double> x);

// One study's observations of a function: the noise-free value and the value with the function's
// noise, drawn from a stream fixed by the study's seed (so every algorithm run with the same seed
// sees the same noise at the same trial number).
class Observer {
 public:
  Observer(const TestFunction& function, std::uint64_t seed) : function_(function), rng_(seed) {}

  struct Value {
    double observed = 0;
    double truth = 0;
    double second = 0;  // a two-objective function's second value (noise-free, as observed)
  };
  Value Observe(std::span<const double> x) {
    const double truth = function_.evaluate(x);
    const std::optional<TwoObjectives>& two = function_.two_objectives;
    return {.observed = truth + function_.noise * noise_(rng_),
            .truth = truth,
            .second = two ? two->second(x) : 0};
  }

 private:
  const TestFunction& function_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> noise_;
};

}  // namespace trainyard::bench
