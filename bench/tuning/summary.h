// The benchmark's Markdown summary: log10 simple regret (median and quartiles over seeds) at
// chosen trial counts, GP against random search, and Suggest times near the end of a study.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "study_runner.h"
#include "test_functions.h"

namespace trainyard::bench {

// Regrets below this are shown as it (log10 = -10): a found minimum, up to rounding.
inline constexpr double kRegretFloor = 1e-10;

// The algorithm names of peer optimisers start with this ("optuna-tpe").
inline constexpr std::string_view kPeerPrefix = "optuna-";

// One (function, variant) pair: one curve of `trials` records per seed.
struct StudySet {
  const TestFunction* function = nullptr;
  const Variant* variant = nullptr;
  std::vector<std::vector<TrialRecord>> curves;
};

// The q-quantile of `values` (not empty) with linear interpolation between order statistics
// (R's type 7, numpy's default).
double Quantile(std::vector<double> values, double q);

// Markdown: the regret table, the GP/random ratio table and the aims, for `checkpoints` (trial
// counts, each <= trials).
std::string SummaryMarkdown(const std::vector<StudySet>& sets, const std::vector<int>& checkpoints,
                            int trials);

}  // namespace trainyard::bench
