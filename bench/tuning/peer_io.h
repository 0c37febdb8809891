// What bench_tuning shares with the peer optimisers run in other processes (optuna_peer.py): the
// functions' descriptions as JSON, an evaluation service on standard input and output (so every
// peer sees the same functions, bounds and noise as trainyard's suggesters), and the peers'
// curves read back for the summary.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "study_runner.h"
#include "test_functions.h"

namespace trainyard::bench {

// [{"name", "label", "minimum", "noise", "params": [{"name", "type": "DOUBLE"|"INTEGER"|
// "DISCRETE"|"CATEGORICAL", "scale": "LINEAR"|"LOG"|"REVERSE_LOG", "min", "max", "values",
// "condition": {"parent", "values"}}]}]: a conditional parameter (only those have "condition") is
// active when its parent is active with one of the condition's values (numbers, or a CATEGORICAL
// parent's categories); a parent comes before its children. A two-objective function also has
// "objectives": 2, "reference": [r0, r1] and "max_hypervolume" (TwoObjectives); the others'
// descriptions are as they were before those existed.
std::string DescribeJson(const std::vector<const TestFunction*>& functions);

// What a line of ServeEvaluations' input holds for a parameter the trial does not have.
inline constexpr std::string_view kAbsent = "-";

// One study's evaluations: each line of `in` holds one trial's values in the order of the
// parameters, separated by spaces (numbers, or a CATEGORICAL parameter's value; kAbsent for an
// inactive conditional parameter), and gets the line "observed truth on_bound" (0 or 1) on `out`,
// flushed; for a two-objective function the line goes on with "observed2 truth2 regret": the
// second objective's values and the study's hypervolume regret once this trial is added (the
// lines so far are the study's trials). The noise stream is the one RunStudy uses with `seed`.
// Returns an error for a line that does not parse, lacks an active parameter or has an unknown
// category, and stops there; a value given for an inactive parameter is ignored.
Status ServeEvaluations(const TestFunction& function, std::uint64_t seed, std::istream& in,
                        std::ostream& out);

// A peer's curves as read back: one per (function, algorithm), one curve per seed.
struct PeerCurves {
  const TestFunction* function = nullptr;
  std::string algorithm;
  std::vector<std::vector<TrialRecord>> curves;
};

// The curves of a CSV in bench_tuning's --csv format (functions not in `functions` are skipped),
// in the order first seen. Every seed's curve must have `trials` records.
Result<std::vector<PeerCurves>> ReadPeerCurves(const std::string& path,
                                               const std::vector<const TestFunction*>& functions,
                                               int trials);

}  // namespace trainyard::bench
