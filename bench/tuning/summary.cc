#include "summary.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

namespace trainyard::bench {
namespace {

double Log10Regret(double regret) {
  return std::log10(std::max(regret, kRegretFloor));
}

// Each seed's regret after `trial` trials (1-based).
std::vector<double> RegretsAt(const StudySet& set, int trial) {
  std::vector<double> regrets;
  for (const std::vector<TrialRecord>& curve : set.curves) {
    regrets.push_back(curve[static_cast<std::size_t>(trial - 1)].regret);
  }
  return regrets;
}

std::vector<double> Log10RegretsAt(const StudySet& set, int trial) {
  std::vector<double> logs = RegretsAt(set, trial);
  std::transform(logs.begin(), logs.end(), logs.begin(), Log10Regret);
  return logs;
}

// "3.4×", "52×", "1200×": two significant digits below 100, whole numbers above.
std::string FormatRatio(double ratio) {
  return ratio >= 100 ? fmt::format("{:.0f}×", ratio) : fmt::format("{:.2g}×", ratio);
}

// The first observation count whose Suggest calls count as "near the end" of a study.
int LateCallsFrom(int trials) {
  return trials - trials / 10;
}

struct CallTimes {
  std::vector<double> wall_ms;
  std::vector<double> cpu_ms;
};

// The Suggest calls (one per batch) that saw at least LateCallsFrom(trials) observations.
CallTimes LateCalls(const StudySet& set, int trials) {
  CallTimes times;
  for (const std::vector<TrialRecord>& curve : set.curves) {
    for (std::size_t i = 0; i < curve.size(); ++i) {
      const bool first_of_call = i == 0 || curve[i].observed != curve[i - 1].observed;
      if (first_of_call && curve[i].observed >= LateCallsFrom(trials)) {
        times.wall_ms.push_back(curve[i].suggest_ms);
        times.cpu_ms.push_back(curve[i].suggest_cpu_ms);
      }
    }
  }
  return times;
}

const StudySet* Find(const std::vector<StudySet>& sets, const TestFunction* function,
                     const std::string& variant) {
  for (const StudySet& set : sets) {
    if (set.function == function && set.variant->name == variant) {
      return &set;
    }
  }
  return nullptr;
}

std::vector<const TestFunction*> FunctionsOf(const std::vector<StudySet>& sets) {
  std::vector<const TestFunction*> functions;
  for (const StudySet& set : sets) {
    if (std::find(functions.begin(), functions.end(), set.function) == functions.end()) {
      functions.push_back(set.function);
    }
  }
  return functions;
}

void AppendRegretTable(const std::vector<StudySet>& sets, const std::vector<int>& checkpoints,
                       int trials, std::string& out) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "| function | algorithm |");
  for (const int trial : checkpoints) {
    fmt::format_to(it, " trial {} |", trial);
  }
  fmt::format_to(it, " Suggest ms p50 / p99 (CPU p50) |\n|---|---|");
  for (std::size_t i = 0; i < checkpoints.size(); ++i) {
    fmt::format_to(it, "---:|");
  }
  fmt::format_to(it, "---:|\n");
  const TestFunction* previous = nullptr;
  for (const StudySet& set : sets) {
    const std::string label = set.function == previous ? "" : set.function->label;
    previous = set.function;
    fmt::format_to(it, "| {} | {} |", label, set.variant->name);
    for (const int trial : checkpoints) {
      const std::vector<double> logs = Log10RegretsAt(set, trial);
      fmt::format_to(it, " {:.2f} [{:.2f}, {:.2f}] |", Quantile(logs, 0.5), Quantile(logs, 0.25),
                     Quantile(logs, 0.75));
    }
    const CallTimes late = LateCalls(set, trials);
    if (late.wall_ms.empty()) {
      fmt::format_to(it, " |\n");
    } else {
      fmt::format_to(it, " {:.3g} / {:.3g} ({:.3g}) |\n", Quantile(late.wall_ms, 0.5),
                     Quantile(late.wall_ms, 0.99), Quantile(late.cpu_ms, 0.5));
    }
  }
}

bool IsPeer(const StudySet& set) {
  return set.variant->name.starts_with(kPeerPrefix);
}

// trainyard's GP against the best peer (lowest median) at each trial count.
void AppendPeerTable(const std::vector<StudySet>& sets, const std::vector<int>& checkpoints,
                     std::string& out) {
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "| function | trials | gp | best Optuna sampler | its median | gp − best | aim |\n"
                 "|---|---:|---:|---|---:|---:|---|\n");
  for (const TestFunction* function : FunctionsOf(sets)) {
    const StudySet* gp = Find(sets, function, "gp");
    if (gp == nullptr) {
      continue;
    }
    for (const int trial : checkpoints) {
      const StudySet* best = nullptr;
      double best_median = 0;
      for (const StudySet& set : sets) {
        if (set.function != function || !IsPeer(set)) {
          continue;
        }
        const double median = Quantile(Log10RegretsAt(set, trial), 0.5);
        if (best == nullptr || median < best_median) {
          best = &set;
          best_median = median;
        }
      }
      if (best == nullptr) {
        continue;
      }
      const double gp_median = Quantile(Log10RegretsAt(*gp, trial), 0.5);
      fmt::format_to(it, "| {} | {} | {:.2f} | {} | {:.2f} | {:+.2f} | {} |\n", function->label,
                     trial, gp_median, best->variant->name, best_median, gp_median - best_median,
                     gp_median <= best_median ? "met" : "**not met**");
    }
  }
}

void AppendRatioTable(const std::vector<StudySet>& sets, const std::vector<int>& checkpoints,
                      std::string& out) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "| function | algorithm |");
  for (const int trial : checkpoints) {
    fmt::format_to(it, " trial {} |", trial);
  }
  fmt::format_to(it, "\n|---|---|");
  for (std::size_t i = 0; i < checkpoints.size(); ++i) {
    fmt::format_to(it, "---:|");
  }
  fmt::format_to(it, "\n");
  for (const StudySet& set : sets) {
    const StudySet* random = Find(sets, set.function, "random");
    if (random == nullptr || &set == random || IsPeer(set)) {
      continue;
    }
    fmt::format_to(it, "| {} | {} |", set.function->label, set.variant->name);
    for (const int trial : checkpoints) {
      const double ratio = Quantile(RegretsAt(*random, trial), 0.5) /
                           std::max(Quantile(RegretsAt(set, trial), 0.5), kRegretFloor);
      const double log_gap =
          Quantile(Log10RegretsAt(*random, trial), 0.5) - Quantile(Log10RegretsAt(set, trial), 0.5);
      fmt::format_to(it, " {} ({:+.2f}) |", FormatRatio(ratio), log_gap);
    }
    fmt::format_to(it, "\n");
  }
}

void AppendAims(const std::vector<StudySet>& sets, int trials, std::string& out) {
  auto it = std::back_inserter(out);
  constexpr int kAimTrial = 50;
  if (trials >= kAimTrial) {
    for (const TestFunction* function : FunctionsOf(sets)) {
      if (function->name != "branin" && function->name != "hartmann6") {
        continue;
      }
      const StudySet* gp = Find(sets, function, "gp");
      const StudySet* random = Find(sets, function, "random");
      if (gp == nullptr || random == nullptr) {
        continue;
      }
      const double ratio = Quantile(RegretsAt(*random, kAimTrial), 0.5) /
                           std::max(Quantile(RegretsAt(*gp, kAimTrial), 0.5), kRegretFloor);
      fmt::format_to(it,
                     "* {}: median regret at {} trials is {} lower with the GP than with "
                     "random search (aim ≥ 10×: {}).\n",
                     function->label, kAimTrial, FormatRatio(ratio),
                     ratio >= 10 ? "met" : "not met");
    }
  }
  CallTimes all;
  for (const StudySet& set : sets) {
    if (set.variant->name != "gp") {
      continue;
    }
    const CallTimes late = LateCalls(set, trials);
    all.wall_ms.insert(all.wall_ms.end(), late.wall_ms.begin(), late.wall_ms.end());
    all.cpu_ms.insert(all.cpu_ms.end(), late.cpu_ms.begin(), late.cpu_ms.end());
  }
  if (!all.wall_ms.empty()) {
    const double p99 = Quantile(all.wall_ms, 0.99);
    fmt::format_to(it,
                   "* GP Suggest (one point) at {}–{} observations, all functions: p50 {:.1f} ms, "
                   "p99 {:.1f} ms, max {:.1f} ms wall; p50 {:.1f} ms CPU (aim ≤ 50 ms at 100: "
                   "{}).\n",
                   LateCallsFrom(trials), trials - 1, Quantile(all.wall_ms, 0.5), p99,
                   *std::max_element(all.wall_ms.begin(), all.wall_ms.end()),
                   Quantile(all.cpu_ms, 0.5), p99 <= 50 ? "met" : "not met");
  }
}

// The seeds whose final log10 regret is more than 1 above the median: the stuck ones.
void AppendRobustness(const std::vector<StudySet>& sets, const std::vector<int>& checkpoints,
                      std::string& out) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "| function | algorithm |");
  for (const int trial : checkpoints) {
    fmt::format_to(it, " trial {}: Q3 − median, stuck |", trial);
  }
  fmt::format_to(it, " trials with a DOUBLE on a bound: healthy seeds, stuck seeds |\n|---|---|");
  for (std::size_t i = 0; i <= checkpoints.size(); ++i) {
    fmt::format_to(it, "---:|");
  }
  fmt::format_to(it, "\n");
  for (const StudySet& set : sets) {
    fmt::format_to(it, "| {} | {} |", set.function->label, set.variant->name);
    std::vector<bool> stuck_at_end;
    for (const int trial : checkpoints) {
      const std::vector<double> logs = Log10RegretsAt(set, trial);
      const double median = Quantile(logs, 0.5);
      stuck_at_end.clear();
      for (const double log : logs) {
        stuck_at_end.push_back(log > median + 1);
      }
      fmt::format_to(it, " {:.2f}, {} |", Quantile(logs, 0.75) - median,
                     std::count(stuck_at_end.begin(), stuck_at_end.end(), true));
    }
    std::vector<double> healthy;
    std::vector<double> stuck;
    for (std::size_t s = 0; s < set.curves.size(); ++s) {
      const auto on_bound = std::count_if(set.curves[s].begin(), set.curves[s].end(),
                                          [](const TrialRecord& r) { return r.on_bound; });
      const double share =
          100.0 * static_cast<double>(on_bound) / static_cast<double>(set.curves[s].size());
      (stuck_at_end[s] ? stuck : healthy).push_back(share);
    }
    const auto range = [](const std::vector<double>& shares) {
      return shares.empty() ? std::string("–")
                            : fmt::format("{:.0f}% [{:.0f}–{:.0f}]", Quantile(shares, 0.5),
                                          *std::min_element(shares.begin(), shares.end()),
                                          *std::max_element(shares.begin(), shares.end()));
    };
    fmt::format_to(it, " {}, {} |\n", range(healthy), range(stuck));
  }
}

// Every seed's final log10 regret, in seed order.
void AppendSeeds(const std::vector<StudySet>& sets, int trials, std::string& out) {
  auto it = std::back_inserter(out);
  for (const StudySet& set : sets) {
    fmt::format_to(it, "* {}, {}:", set.function->label, set.variant->name);
    for (const double log : Log10RegretsAt(set, trials)) {
      fmt::format_to(it, " {:.2f}", log);
    }
    fmt::format_to(it, "\n");
  }
}

}  // namespace

double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return values[below] + fraction * (values[above] - values[below]);
}

std::string SummaryMarkdown(const std::vector<StudySet>& sets, const std::vector<int>& checkpoints,
                            int trials) {
  std::string out;
  auto it = std::back_inserter(out);
  const std::size_t seeds = sets.empty() ? 0 : sets.front().curves.size();
  fmt::format_to(it,
                 "log10 of the simple regret (best value found so far minus the known minimum; "
                 "regrets below {:g} count as {:g}) after N trials: median [lower quartile, upper "
                 "quartile] over {} seeds. Lower is better. The Suggest columns cover the calls "
                 "that saw {}–{} completed trials; `gp-batch4` calls propose 4 points each.\n\n",
                 kRegretFloor, kRegretFloor, seeds, LateCallsFrom(trials), trials - 1);
  if (std::any_of(sets.begin(), sets.end(),
                  [](const StudySet& set) { return set.function->two_objectives.has_value(); })) {
    fmt::format_to(it,
                   "The two-objective functions (\"2 objectives\") run as studies with two "
                   "metrics, both minimised; their regret is the hypervolume regret: the "
                   "hypervolume the whole Pareto front dominates up to the function's reference "
                   "point minus the hypervolume the trials so far dominate (both noise-free).\n\n");
  }
  AppendRegretTable(sets, checkpoints, trials, out);
  fmt::format_to(it,
                 "\nGP against random search: median regret of random ÷ median regret of the "
                 "algorithm (how many times lower the GP's is), and in brackets the difference of "
                 "the median log10 regrets.\n\n");
  AppendRatioTable(sets, checkpoints, out);
  const bool peers = std::any_of(sets.begin(), sets.end(), IsPeer);
  if (peers) {
    fmt::format_to(it,
                   "\ntrainyard's GP against the best Optuna sampler (lowest median log10 regret "
                   "of those run) per function and trial count; aim: the GP's median ≤ the best "
                   "sampler's.\n\n");
    AppendPeerTable(sets, checkpoints, out);
  }
  fmt::format_to(it, "\n");
  AppendAims(sets, trials, out);
  fmt::format_to(it,
                 "\nRobustness: the upper quartile's distance above the median (log10), the "
                 "seeds more than 1 above the median (stuck), and the share of a seed's trials "
                 "with some DOUBLE parameter exactly on a bound of its range (median [min–max] "
                 "over seeds; stuck as at the last trial).\n\n");
  AppendRobustness(sets, checkpoints, out);
  fmt::format_to(it, "\nEvery seed's log10 regret after {} trials, seeds in order:\n\n", trials);
  AppendSeeds(sets, trials, out);
  return out;
}

}  // namespace trainyard::bench
