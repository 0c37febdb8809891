// Runs one benchmark study: a suggestion algorithm minimising a test function through the same
// tuning/ path the executor takes (a HyperparameterSpec and its conditions, ConditionalSpace,
// MakeStudySuggester, trials with their active parameters read back by HistoryOf), one batch of
// suggestions per step, and records how the best value found so far improves; a two-objective
// function as a study with two metrics, and how its hypervolume regret falls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/job.h"
#include "test_functions.h"
#include "tuning/conditional_space.h"

namespace trainyard::bench {

// An algorithm as the benchmark runs it: `batch` suggestions per Suggest call, all evaluated
// before the next call.
struct Variant {
  std::string name;  // "gp", "random", "gp-batch4"
  model::Algorithm algorithm = model::Algorithm::kUnspecified;
  int batch = 1;
};

// The variants --algorithms can name: gp, random, gp-batch4.
const std::vector<Variant>& KnownVariants();

struct TrialRecord {
  // The noise-free value at the best observation so far minus the known minimum; for a
  // two-objective function, the hypervolume regret of the trials so far (TwoObjectives).
  double regret = 0;
  // The Suggest call that proposed this trial; the trials of one batch share one call.
  double suggest_ms = 0;      // wall time
  double suggest_cpu_ms = 0;  // this thread's CPU time
  int observed = 0;           // completed trials that call saw
  bool on_bound = false;      // some DOUBLE parameter of this trial exactly on a bound
};

// One trial record per trial, in trial order. The suggester is made afresh for every call (as a
// controller that restarted would), from `seed`; only the Suggest call is timed. Each trial holds
// the active parameters of its suggestion only (ConditionalSpace::Restrict), as the executor's
// trials do, and is evaluated with the others absent (NaN). A two-objective function's study has
// a second metric, also minimised (MakeStudySuggester's extra_goals), whose values its
// observations carry (Observation::more, through HistoryOf's measurements).
Result<std::vector<TrialRecord>> RunStudy(const TestFunction& function, const Variant& variant,
                                          std::uint64_t seed, int trials);

// The spec RunStudy optimises: the function's parameters, goal MINIMIZE.
model::HyperparameterSpec SpecFor(const TestFunction& function, const Variant& variant, int trials);

// The space RunStudy searches: the function's parameters and conditions.
Result<tuning::ConditionalSpace> SpaceFor(const TestFunction& function);

}  // namespace trainyard::bench
