#include "cli/local/local_train_command.h"

#include <charconv>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/local/child_process.h"
#include "cli/local/local_cluster.h"
#include "cli/output/error_output.h"
#include "plan/local_train.h"

namespace trainyard::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCommand = "trainyard.local.train";
constexpr const char* kDefaultPython = "/usr/bin/python3";

// surface/ai_platform/local/train.py _BAD_FLAGS_WARNING_MESSAGE.
constexpr std::string_view kIgnoredFlagWarning =
    "WARNING: {} is ignored if --distributed is not provided.\n"
    "Did you mean to run distributed training?\n";

// local_train.GetPrimaryNodeName's warning, word for word (gcloud's message starts with a line
// break and is indented), except the last two lines: trainyard's interpreter is chosen with
// --python or $TRAINYARD_PYTHON, not gcloud's `ml_engine/local_python` property.
constexpr std::string_view kNoTensorflowWarning =
    "WARNING: \n"
    "    Cannot import tensorflow under path {}. Using \"chief\" for cluster setting.\n"
    "    If this is not intended, Please check if tensorflow is installed. Please also\n"
    "    verify if the python path used is correct. If not, to change the python path:\n"
    "    use `--python $python_path` or `export TRAINYARD_PYTHON=$python_path`\n"
    "    Eg: export TRAINYARD_PYTHON=/usr/bin/python3\n";

constexpr std::string_view kUnexpectedVersionWarning =
    "WARNING: Unexpected tensorflow version {}, using the default primary node name, aka "
    "\"chief\" for cluster settings\n";

// local_train.GetPrimaryNodeName: the interpreter's TensorFlow 1.x is "master"; 2.x, another
// version or none at all is "chief".
Result<std::string> PrimaryNodeName(const std::string& python, std::ostream& err) {
  Result<CapturedOutput> probe =
      CaptureStdout({python, "-c", "import tensorflow as tf; print(tf.version.VERSION)"});
  if (!probe.ok()) {
    return probe.status();
  }
  if (probe->exit_code != 0) {
    err << fmt::format(fmt::runtime(kNoTensorflowWarning), python);
    return std::string("chief");
  }
  std::string version = probe->output;
  while (!version.empty() && (version.back() == '\n' || version.back() == '\r')) {
    version.pop_back();
  }
  if (version.starts_with("1.")) {
    return std::string("master");
  }
  if (!version.starts_with("2.")) {
    err << fmt::format(fmt::runtime(kUnexpectedVersionWarning), version);
  }
  return std::string("chief");
}

// gcloud: os.path.dirname(os.path.abspath(package_path or cwd)).
Result<fs::path> PackageRoot(const std::string& package_path) {
  std::error_code ec;
  fs::path path = package_path.empty() ? fs::current_path(ec) : fs::absolute(package_path, ec);
  if (ec) {
    return Status::FailedPrecondition(
        fmt::format("Cannot resolve the package path: {}", ec.message()));
  }
  path = path.lexically_normal();
  if (!path.has_filename()) {  // "/a/b/" -> "/a/b"
    path = path.parent_path();
  }
  fs::path root = path.parent_path();
  if (!fs::is_directory(root, ec)) {
    return Status::FailedPrecondition(fmt::format(
        "Cannot run the trainer in [{}], the parent of the package path: no such directory",
        root.string()));
  }
  return root;
}

// A count flag: argparse's `type=int`, and not negative (gcloud takes -1 and fails later).
CLI::Validator Count() {
  return {[](std::string& text) -> std::string {
            int value = 0;
            const auto [end, error] =
                std::from_chars(text.data(), text.data() + text.size(), value);
            if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
              return fmt::format("invalid int value: '{}'", text);
            }
            return value < 0 ? fmt::format("must be 0 or more, got {}", value) : std::string();
          },
          "INT>=0"};
}

ChildSpec ToChild(plan::ReplicaLaunch launch, const fs::path& working_dir) {
  return {.argv = std::move(launch.argv), .env = std::move(launch.env), .working_dir = working_dir};
}

}  // namespace

struct LocalTree::Flags {
  CLI::App* train = nullptr;
  std::string module_name;
  std::string package_path;
  std::string job_dir;
  bool distributed = false;
  int worker_count = 2;
  int parameter_server_count = 2;
  int evaluator_count = 0;
  int start_port = 27182;
  std::string python;
  CLI::Option* workers = nullptr;
  CLI::Option* parameter_servers = nullptr;
};

LocalTree::LocalTree(CLI::App& app) : flags_(std::make_unique<Flags>()) {
  Flags& f = *flags_;
  CLI::App* local = app.add_subcommand("local", "Run training on this machine, without a server.");
  local->require_subcommand(1);
  f.train = local->add_subcommand(
      "train",
      "Run a trainer module locally, with the TF_CONFIG a training job gives it (as `gcloud "
      "ai-platform local train`). Words after `--` are passed to the trainer.");
  CLI::App& train = *f.train;
  train.add_option("--module-name", f.module_name, "Name of the module to run.")->required();
  train.add_option("--package-path", f.package_path,
                   "Path to the Python package (a directory). The trainer runs in its *parent* "
                   "directory, where `python -m` finds it; it is not installed. Default: the "
                   "current directory.");
  train.add_option("--job-dir", f.job_dir,
                   "Cloud Storage path or local directory passed to the trainer as `--job-dir`.");
  train.add_flag("--distributed", f.distributed,
                 "Runs the provided code in distributed mode by providing cluster "
                 "configurations as environment variables to subprocesses");
  f.workers = train
                  .add_option("--worker-count", f.worker_count,
                              "Number of workers with which to run. Ignored if --distributed is "
                              "not specified. Default: 2")
                  ->check(Count());
  f.parameter_servers = train
                            .add_option("--parameter-server-count", f.parameter_server_count,
                                        "Number of parameter servers with which to run. Ignored "
                                        "if --distributed is not specified. Default: 2")
                            ->check(Count());
  train
      .add_option("--evaluator-count", f.evaluator_count,
                  "Number of evaluators with which to run. Ignored if --distributed is not "
                  "specified. Default: 0")
      ->check(Count());
  train
      .add_option("--start-port", f.start_port,
                  "Start of the range of ports reserved by the local cluster: "
                  "parameter-server-count + worker-count + 1 contiguous ports. Default: 27182")
      ->check(CLI::Range(1, 65535));
  train.add_option("--python", f.python,
                   "Interpreter to run the trainer with (default: $TRAINYARD_PYTHON, else "
                   "/usr/bin/python3).");
  train.callback([&f] {
    const long last_port =
        static_cast<long>(f.start_port) + f.parameter_server_count + f.worker_count;
    if (f.distributed && last_port > 65535) {
      throw CLI::ValidationError(
          "--start-port",
          fmt::format("the cluster needs ports {} to {}, past 65535", f.start_port, last_port));
    }
  });
}

LocalTree::~LocalTree() = default;

std::optional<int> LocalTree::Run(const Environment& env,
                                  const std::optional<std::vector<std::string>>& user_args,
                                  std::ostream& err) {
  const Flags& f = *flags_;
  if (!f.train->parsed()) {
    return std::nullopt;
  }
  if (!f.distributed) {  // gcloud warns only for a non-zero count
    if (f.parameter_servers->count() > 0 && f.parameter_server_count != 0) {
      err << fmt::format(fmt::runtime(kIgnoredFlagWarning), "--parameter-server-count");
    }
    if (f.workers->count() > 0 && f.worker_count != 0) {
      err << fmt::format(fmt::runtime(kIgnoredFlagWarning), "--worker-count");
    }
  }
  Result<fs::path> root = PackageRoot(f.package_path);
  if (!root.ok()) {
    PrintError(err, kCommand, root.status().message());
    return 1;
  }
  const std::string python =
      !f.python.empty() ? f.python
                        : (env.python && !env.python->empty() ? *env.python : kDefaultPython);
  Result<std::string> primary_name = PrimaryNodeName(python, err);
  if (!primary_name.ok()) {
    PrintError(err, kCommand, primary_name.status().message());
    return 1;
  }
  std::vector<plan::ReplicaLaunch> launches =
      plan::BuildLocalTrainPlan({.module_name = f.module_name,
                                 .user_args = user_args.value_or(std::vector<std::string>{}),
                                 .job_dir = f.job_dir,
                                 .distributed = f.distributed,
                                 .worker_count = f.worker_count,
                                 .parameter_server_count = f.parameter_server_count,
                                 .evaluator_count = f.evaluator_count,
                                 .start_port = f.start_port,
                                 .python = python,
                                 .primary_name = *primary_name});
  std::vector<ChildSpec> others;
  for (std::size_t i = 1; i < launches.size(); ++i) {
    others.push_back(ToChild(std::move(launches[i]), *root));
  }
  Result<int> exit_code = RunLocalCluster(others, ToChild(std::move(launches.front()), *root));
  if (!exit_code.ok()) {
    PrintError(err, kCommand, exit_code.status().message());
    return 1;
  }
  return *exit_code;
}

}  // namespace trainyard::cli
