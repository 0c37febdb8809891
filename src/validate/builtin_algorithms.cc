// A built-in algorithm's job (docs/reference/ai-platform-training.md §12; the arguments are
// algorithms/data/builtin_algorithms.json): its arguments, each named by its place in
// trainingInput.args, its replicas, and the hyperparameters a tuning job may set.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "algorithms/algorithms.h"
#include "validate/rules.h"

namespace trainyard::validate {
namespace {

using algorithms::Algorithm;
using algorithms::Argument;
using algorithms::ArgumentType;

// The job directory reaches the program as `--job-dir` (§7.5); users may pass it too.
bool IsJobDirArgument(std::string_view name) {
  return name == "job-dir" || name == "job_dir";
}

std::optional<double> ParseNumber(std::string_view text, bool integer) {
  if (integer) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) {
      return std::nullopt;
    }
    return static_cast<double>(value);
  }
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

bool InRange(const Argument& argument, double value) {
  const bool above_min =
      !argument.min || (argument.exclusive_min ? value > *argument.min : value >= *argument.min);
  const bool below_max =
      !argument.max || (argument.exclusive_max ? value < *argument.max : value <= *argument.max);
  return above_min && below_max;
}

// "[0, 1]", "(0, 1]", "[1, ∞)": the range in interval notation.
std::string RangeText(const Argument& argument) {
  return fmt::format("{}{}, {}{}", argument.exclusive_min || !argument.min ? '(' : '[',
                     argument.min ? fmt::format("{}", *argument.min) : "-inf",
                     argument.max ? fmt::format("{}", *argument.max) : "inf",
                     argument.exclusive_max || !argument.max ? ')' : ']');
}

// Why `value` is not a valid `argument`, or "" when it is.
std::string ValueProblem(const Argument& argument, std::string_view value) {
  switch (argument.type) {
    case ArgumentType::kBool: {
      std::string lower(value);
      std::ranges::transform(lower, lower.begin(), [](unsigned char c) { return std::tolower(c); });
      return lower == "true" || lower == "false" || lower == "1" || lower == "0"
                 ? ""
                 : fmt::format("--{} is a flag: give it alone, or as true or false; got \"{}\"",
                               argument.name, value);
    }
    case ArgumentType::kString:
      return value.empty() ? fmt::format("--{} needs a value", argument.name) : "";
    case ArgumentType::kPath:
      return value.starts_with("gs://") && value.size() > 5
                 ? ""
                 : fmt::format("--{} must be a Cloud Storage path (gs://bucket/object); got \"{}\"",
                               argument.name, value);
    case ArgumentType::kInt:
    case ArgumentType::kFloat: {
      const bool integer = argument.type == ArgumentType::kInt;
      const std::optional<double> number = ParseNumber(value, integer);
      if (!number) {
        return fmt::format("--{} must be {}; got \"{}\"", argument.name,
                           integer ? "an integer" : "a number", value);
      }
      return InRange(argument, *number) ? ""
                                        : fmt::format("--{} must be in the range {}; got {}",
                                                      argument.name, RangeText(argument), value);
    }
    case ArgumentType::kIntList: {
      bool valid = !value.empty();
      for (std::string_view rest = value; valid;) {
        const std::size_t comma = rest.find(',');
        const std::optional<double> number = ParseNumber(rest.substr(0, comma), true);
        valid = number && InRange(argument, *number);
        if (comma == std::string_view::npos) {
          break;
        }
        rest.remove_prefix(comma + 1);
      }
      return valid ? ""
                   : fmt::format(
                         "--{} must be comma-separated integers in the range {}, such as "
                         "\"{}\"; got \"{}\"",
                         argument.name, RangeText(argument), argument.default_value, value);
    }
    case ArgumentType::kEnum:
      return std::ranges::find(argument.values, value) != argument.values.end()
                 ? ""
                 : fmt::format("--{} must be one of {}; got \"{}\"", argument.name,
                               fmt::join(argument.values, ", "), value);
  }
  return "";
}

// One argument as given: where it starts in args, and its value ("true" for a bare flag).
struct Given {
  std::size_t index = 0;
  std::string value;
};

// Reads `args` as `--name=value`, `--name value` or a bare `--flag`, reporting what is wrong at
// the argument's place (`trainingInput.args[i]`); returns the valid ones by name.
std::map<std::string, Given, std::less<>> ReadArguments(const Algorithm& algorithm,
                                                        const std::vector<std::string>& args,
                                                        const FieldPath& path, Violations& out) {
  std::map<std::string, Given, std::less<>> given;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view text = args[i];
    const FieldPath at = path.Index(i);
    if (!text.starts_with("--") || text.size() == 2) {
      out.Add(at, fmt::format("\"{}\" is not an argument: the built-in {} algorithm takes "
                              "--name=value arguments",
                              text, algorithm.display_name));
      continue;
    }
    const std::size_t equals = text.find('=');
    const std::string name(
        text.substr(2, equals == std::string_view::npos ? text.npos : equals - 2));
    std::optional<std::string> value;
    if (equals != std::string_view::npos) {
      value = std::string(text.substr(equals + 1));
    }
    const Argument* argument = algorithm.FindArgument(name);
    if (IsJobDirArgument(name)) {
      if (!value && i + 1 < args.size()) {
        ++i;
      }
      continue;
    }
    if (argument == nullptr) {
      out.Add(at, fmt::format("Unknown argument --{} for the built-in {} algorithm", name,
                              algorithm.display_name));
      continue;
    }
    if (!value && argument->type == ArgumentType::kBool) {
      value = "true";
    } else if (!value && i + 1 < args.size() && !args[i + 1].starts_with("--")) {
      value = args[++i];
    } else if (!value) {
      out.Add(at, fmt::format("--{} needs a value", name));
      continue;
    }
    if (const auto earlier = given.find(name); earlier != given.end()) {
      out.Add(at, fmt::format("--{} is given twice (also at {})", name,
                              path.Index(earlier->second.index).str()));
      continue;
    }
    if (std::string problem = ValueProblem(*argument, *value); !problem.empty()) {
      out.Add(at, std::move(problem));
      continue;
    }
    given.emplace(name, Given{.index = i, .value = std::move(*value)});
  }
  return given;
}

// The documented limit on the splits of --preprocess: validation_split + test_split <= 0.40.
void CheckSplits(const Algorithm& algorithm, const std::map<std::string, Given, std::less<>>& given,
                 const FieldPath& path, Violations& out) {
  const Argument* validation = algorithm.FindArgument("validation_split");
  const Argument* test = algorithm.FindArgument("test_split");
  if (algorithm.max_split_sum <= 0 || validation == nullptr || test == nullptr) {
    return;
  }
  const auto value_of = [&](const Argument& argument) {
    const auto it = given.find(argument.name);
    return ParseNumber(it == given.end() ? argument.default_value : it->second.value, false)
        .value_or(0);
  };
  const double sum = value_of(*validation) + value_of(*test);
  constexpr double kTolerance = 1e-9;  // 0.2 + 0.2 is 0.4000000000000001
  if (sum <= algorithm.max_split_sum + kTolerance) {
    return;
  }
  // Named at the later of the two given; one of them is, or the defaults would be over.
  std::size_t index = 0;
  for (const std::string_view name : {"validation_split", "test_split"}) {
    if (const auto it = given.find(name); it != given.end()) {
      index = std::max(index, it->second.index);
    }
  }
  out.Add(path.Index(index),
          fmt::format("validation_split + test_split must be at most {:.2f}; got {} + {} = {:.2f}",
                      algorithm.max_split_sum, value_of(*validation), value_of(*test), sum));
}

// A tuning job's parameters are passed as `--name=value` (§9.1): each must be an argument the
// algorithm documents as tunable.
void CheckTunedParameters(const Algorithm& algorithm, const JobContext& job, Violations& out) {
  if (!job.input.hyperparameters) {
    return;
  }
  const FieldPath params = job.path.Child("hyperparameters").Child("params");
  const std::vector<model::ParameterSpec>& specs = job.input.hyperparameters->params;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const Argument* argument = algorithm.FindArgument(specs[i].parameter_name);
    if (argument == nullptr || !argument->tunable) {
      out.Add(params.Index(i).Child("parameterName"),
              fmt::format("{} is not a tunable argument of the built-in {} algorithm",
                          specs[i].parameter_name, algorithm.display_name));
    }
  }
}

}  // namespace

void CheckBuiltInAlgorithm(const JobContext& job, Violations& out) {
  if (!job.container_job()) {
    return;
  }
  const Algorithm* algorithm = algorithms::FindAlgorithm(job.input.master_config->image_uri);
  if (algorithm == nullptr || !algorithm->available) {
    return;  // an unavailable one is refused as a whole (CheckAlgorithmAvailable)
  }
  const FieldPath master = job.path.Child("masterConfig");
  for (const std::string_view field : {"containerCommand", "containerArgs"}) {
    const bool set = field == "containerCommand"
                         ? !job.input.master_config->container_command.empty()
                         : !job.input.master_config->container_args.empty();
    if (set) {
      out.Add(master.Child(field),
              fmt::format("a built-in algorithm runs its own program: give the {} algorithm's "
                          "arguments in trainingInput.args (after -- on gcloud's command line)",
                          algorithm->display_name));
    }
  }
  std::int64_t replicas = 0;
  for (const RunningReplica& replica : job.running) {
    replicas += replica.count;
    // Google's distributed XGBoost page: "Do not specify any parameter servers."
    if (!algorithm->roles.empty() &&
        std::ranges::find(algorithm->roles, replica.view->noun) == algorithm->roles.end()) {
      out.Add(
          job.custom() ? replica.view->count_path : job.path.Child("scaleTier"),
          fmt::format(
              "the built-in {} algorithm runs on its {} replicas only: do not specify any {}s",
              algorithm->display_name, fmt::join(algorithm->roles, " and "), replica.view->noun));
    }
  }
  if (algorithm->max_replicas > 0 && replicas > algorithm->max_replicas) {
    out.Add(job.path.Child(job.custom() ? "workerCount" : "scaleTier"),
            fmt::format("the built-in {} algorithm runs on {} replica{} (the master); this job "
                        "asks for {}",
                        algorithm->display_name, algorithm->max_replicas,
                        algorithm->max_replicas == 1 ? "" : "s", replicas));
  }
  const FieldPath args = job.path.Child("args");
  const auto given = ReadArguments(*algorithm, job.input.args, args, out);
  for (const Argument& argument : algorithm->arguments) {
    if (argument.required && !given.contains(argument.name) &&
        std::ranges::none_of(job.input.args, [&](const std::string& text) {
          return text.starts_with("--" + argument.name);  // given, but wrong: reported there
        })) {
      out.Add(args, fmt::format("--{} is required by the built-in {} algorithm", argument.name,
                                algorithm->display_name));
    }
  }
  CheckSplits(*algorithm, given, args, out);
  CheckTunedParameters(*algorithm, job, out);
}

Status CheckAlgorithmAvailable(const model::Job& job) {
  if (!job.training_input || !job.training_input->master_config) {
    return Status();
  }
  const std::string& image = job.training_input->master_config->image_uri;
  const Algorithm* algorithm = algorithms::FindAlgorithm(image);
  if (algorithm == nullptr || algorithm->available) {
    return Status();
  }
  // docs/reference/ai-platform-training.md §12: a server without the algorithm refuses it.
  return Status::FailedPrecondition(
      fmt::format("The built-in algorithm {} ({}) is not available on this server.", image,
                  algorithm->display_name));
}

}  // namespace trainyard::validate
