// AI Platform Training's built-in algorithms (docs/reference/ai-platform-training.md §12): which
// container images name one, whether this server runs it, how, and the arguments it documents.
// The facts are data, algorithms/data/builtin_algorithms.json, embedded at build time; this code
// only loads and looks them up. Pure: no IO; the table is immutable once loaded and thread-safe.
//
// An available algorithm's master replica runs `<python> -m <module> <args…> --job-dir <dir>`
// with trainyard's python/ on its PYTHONPATH (python/trainyard_algorithms/), instead of the image,
// which cannot be pulled offline; an unavailable one is refused at submit (validate/).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainyard::algorithms {

// kIntList: comma-separated integers ("30,30,30"), each within min and max.
enum class ArgumentType { kBool, kString, kPath, kInt, kFloat, kEnum, kIntList };

// One documented `--name=value` argument.
struct Argument {
  std::string name;  // without the dashes: "max_depth"
  ArgumentType type = ArgumentType::kString;
  bool required = false;
  std::string default_value;  // as text, "" when there is none
  std::optional<double> min;  // numbers only
  std::optional<double> max;
  bool exclusive_min = false;  // min is an open bound
  bool exclusive_max = false;
  std::vector<std::string> values;  // kEnum: the accepted words
  bool tunable = false;             // may be a hyperparameter of a tuning job
};

struct Algorithm {
  std::string name;                 // "xgboost"
  std::string display_name;         // "XGBoost", in messages: "the built-in XGBoost algorithm"
  std::vector<std::string> images;  // without a tag: "gcr.io/cloud-ml-algos/boosted_trees"
  bool available = false;           // this server runs it
  // builtInAlgorithmOutput (docs/reference/ai-platform-training.md §2.5).
  std::string framework;  // "XGBOOST"
  std::string runtime_version;
  std::string python_version;
  std::string python;    // the interpreter: Debian's, whose libraries it uses
  std::string module;    // run with `python -m`
  int max_replicas = 0;  // 1: master only; 0: no limit
  // The replicas it runs on, as validate/ names them ("master", "worker", "parameter server",
  // "evaluator"); empty: any.
  std::vector<std::string> roles;
  // The most validation_split + test_split may add up to (0 when the algorithm has no splits).
  double max_split_sum = 0;
  // In documentation order; with `extends`, the other algorithm's follow, less those `without`
  // names and those named here.
  std::vector<Argument> arguments;

  const Argument* FindArgument(std::string_view argument_name) const;
};

// Every built-in algorithm, in data-file order.
const std::vector<Algorithm>& BuiltinAlgorithms();

// The algorithm an image URI names: Google's name with or without a tag (":latest") or digest
// ("@sha256:…"); nullptr for any other image.
const Algorithm* FindAlgorithm(std::string_view image_uri);

}  // namespace trainyard::algorithms
