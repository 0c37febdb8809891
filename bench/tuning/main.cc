// bench_tuning: optimisation quality and speed of tuning/'s suggestion algorithms on standard
// test functions (bench/README.md, "tuning/"). Not a test: it measures and never fails on a
// figure; it exits non-zero only when it cannot measure (bad flags, a Suggest error).
//
//   bench_tuning [--seeds N] [--first-seed S] [--trials N] [--functions a,b]
//                [--algorithms gp,random,gp-batch4] [--checkpoints 25,50,100]
//                [--csv PATH] [--summary PATH] [--peer-csv PATH]
//   bench_tuning --describe PATH [--functions a,b]
//   bench_tuning --evaluate FUNCTION [--first-seed S]
//
// Writes the raw curves (function,algorithm,seed,trial,regret,suggest_ms,suggest_cpu_ms,
// on_bound) to --csv and the Markdown summary to --summary (default: standard output), with the
// curves of --peer-csv (optuna_peer.py's, in the same format) beside trainyard's. Progress goes to
// standard error. --describe writes the functions as JSON (PATH "-": standard output);
// --evaluate serves one study's evaluations of FUNCTION with seed number S on standard input and
// output (peer_io.h): what optuna_peer.py runs.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <deque>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "peer_io.h"
#include "study_runner.h"
#include "summary.h"
#include "test_functions.h"

namespace trainyard::bench {
namespace {

struct Options {
  int seeds = 20;
  std::uint64_t first_seed = 1;
  int trials = 100;
  std::vector<std::string> functions;   // empty: all
  std::vector<std::string> algorithms;  // empty: all
  std::vector<int> checkpoints = {25, 50, 100};
  std::string csv_path;
  std::string summary_path;
  std::string peer_csv_path;
  std::string describe_path;
  std::string evaluate;
};

std::vector<std::string> SplitCommas(std::string_view text) {
  std::vector<std::string> parts;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    parts.emplace_back(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return parts;
}

// The seed a study gets for the benchmark's seed number: SplitMix64 of the number, so the
// studies' seeds differ in all their bits rather than in the low few (1, 2, 3, ...), as study
// seeds drawn by a controller would.
std::uint64_t StudySeed(std::uint64_t number) {
  std::uint64_t z = number + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

template <typename T>
bool ParseNumber(std::string_view text, T& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

// Returns an error message, or "" when the flags parse.
std::string ParseFlags(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) {
      return fmt::format("{} needs a value", flag);
    }
    const std::string_view value = argv[++i];
    bool ok = true;
    if (flag == "--seeds") {
      ok = ParseNumber(value, options.seeds) && options.seeds > 0;
    } else if (flag == "--first-seed") {
      ok = ParseNumber(value, options.first_seed);
    } else if (flag == "--trials") {
      ok = ParseNumber(value, options.trials) && options.trials > 0;
    } else if (flag == "--functions") {
      options.functions = SplitCommas(value);
    } else if (flag == "--algorithms") {
      options.algorithms = SplitCommas(value);
    } else if (flag == "--checkpoints") {
      options.checkpoints.clear();
      for (const std::string& part : SplitCommas(value)) {
        int trial = 0;
        ok = ok && ParseNumber(std::string_view(part), trial) && trial > 0;
        options.checkpoints.push_back(trial);
      }
    } else if (flag == "--csv") {
      options.csv_path = value;
    } else if (flag == "--summary") {
      options.summary_path = value;
    } else if (flag == "--peer-csv") {
      options.peer_csv_path = value;
    } else if (flag == "--describe") {
      options.describe_path = value;
    } else if (flag == "--evaluate") {
      options.evaluate = value;
    } else {
      return fmt::format("unknown flag {}", flag);
    }
    if (!ok) {
      return fmt::format("bad value for {}: {}", flag, value);
    }
  }
  return "";
}

template <typename T>
std::vector<const T*> Select(const std::vector<T>& known, const std::vector<std::string>& names,
                             std::string& error) {
  std::vector<const T*> selected;
  if (names.empty()) {
    for (const T& item : known) {
      selected.push_back(&item);
    }
    return selected;
  }
  for (const std::string& name : names) {
    const T* found = nullptr;
    for (const T& item : known) {
      if (item.name == name) {
        found = &item;
      }
    }
    if (found == nullptr) {
      error = fmt::format("unknown name {}", name);
      return {};
    }
    selected.push_back(found);
  }
  return selected;
}

int Main(int argc, char** argv) {
  Options options;
  if (const std::string error = ParseFlags(argc, argv, options); !error.empty()) {
    std::cerr << "bench_tuning: " << error << "\n";
    return 2;
  }
  std::string error;
  if (!options.evaluate.empty()) {
    const std::vector<const TestFunction*> function =
        Select(TestFunctions(), {options.evaluate}, error);
    if (!error.empty()) {
      std::cerr << "bench_tuning: " << error << "\n";
      return 2;
    }
    const Status served =
        ServeEvaluations(*function[0], StudySeed(options.first_seed), std::cin, std::cout);
    if (!served.ok()) {
      std::cerr << "bench_tuning: " << served.ToString() << "\n";
      return 1;
    }
    return 0;
  }
  const std::vector<const TestFunction*> functions =
      Select(TestFunctions(), options.functions, error);
  if (!options.describe_path.empty() && error.empty()) {
    if (options.describe_path == "-") {
      std::cout << DescribeJson(functions);
      return 0;
    }
    std::ofstream out(options.describe_path);
    out << DescribeJson(functions);
    return out ? 0 : 1;
  }
  const std::vector<const Variant*> variants = Select(KnownVariants(), options.algorithms, error);
  if (!error.empty()) {
    std::cerr << "bench_tuning: " << error << "\n";
    return 2;
  }
  // Checkpoints past the end are dropped; the last trial is always one.
  std::vector<int> checkpoints;
  for (const int trial : options.checkpoints) {
    if (trial < options.trials) {
      checkpoints.push_back(trial);
    }
  }
  checkpoints.push_back(options.trials);

  std::ofstream csv;
  if (!options.csv_path.empty()) {
    csv.open(options.csv_path);
    if (!csv) {
      std::cerr << "bench_tuning: cannot write " << options.csv_path << "\n";
      return 1;
    }
    csv << "function,algorithm,seed,trial,regret,suggest_ms,suggest_cpu_ms,on_bound\n";
  }
  std::vector<StudySet> sets;
  for (const TestFunction* function : functions) {
    for (const Variant* variant : variants) {
      StudySet& set = sets.emplace_back(StudySet{function, variant, {}});
      const auto start = std::chrono::steady_clock::now();
      for (int s = 0; s < options.seeds; ++s) {
        const std::uint64_t seed = options.first_seed + static_cast<std::uint64_t>(s);
        Result<std::vector<TrialRecord>> curve =
            RunStudy(*function, *variant, StudySeed(seed), options.trials);
        if (!curve.ok()) {
          std::cerr << fmt::format("bench_tuning: {} {} seed {}: {}\n", function->name,
                                   variant->name, seed, curve.status().ToString());
          return 1;
        }
        for (std::size_t t = 0; t < curve->size(); ++t) {
          const TrialRecord& record = (*curve)[t];
          csv << fmt::format("{},{},{},{},{:.6g},{:.3f},{:.3f},{}\n", function->name, variant->name,
                             seed, t + 1, record.regret, record.suggest_ms, record.suggest_cpu_ms,
                             record.on_bound ? 1 : 0);
        }
        set.curves.push_back(*std::move(curve));
      }
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      std::cerr << fmt::format("bench_tuning: {} {}: {} seeds x {} trials in {:.1f} s\n",
                               function->name, variant->name, options.seeds, options.trials,
                               took.count());
    }
  }
  // The peers' variants must outlive `sets`, which points at them.
  std::deque<Variant> peer_variants;
  if (!options.peer_csv_path.empty()) {
    Result<std::vector<PeerCurves>> peers =
        ReadPeerCurves(options.peer_csv_path, functions, options.trials);
    if (!peers.ok()) {
      std::cerr << "bench_tuning: " << peers.status().ToString() << "\n";
      return 1;
    }
    for (PeerCurves& peer : *peers) {
      const Variant* variant = nullptr;
      for (const Variant& known : peer_variants) {
        variant = known.name == peer.algorithm ? &known : variant;
      }
      if (variant == nullptr) {
        variant = &peer_variants.emplace_back(Variant{.name = peer.algorithm});
      }
      sets.push_back({peer.function, variant, std::move(peer.curves)});
    }
    // Each function's rows together, trainyard's first.
    std::stable_sort(sets.begin(), sets.end(), [&](const StudySet& a, const StudySet& b) {
      return std::find(functions.begin(), functions.end(), a.function) <
             std::find(functions.begin(), functions.end(), b.function);
    });
  }
  const std::string summary = SummaryMarkdown(sets, checkpoints, options.trials);
  if (options.summary_path.empty()) {
    std::cout << summary;
    return 0;
  }
  std::ofstream out(options.summary_path);
  out << summary;
  if (!out) {
    std::cerr << "bench_tuning: cannot write " << options.summary_path << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace trainyard::bench

int main(int argc, char** argv) {
  return trainyard::bench::Main(argc, argv);
}
