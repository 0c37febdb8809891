// Internal to cli/: `trainyard local train`, gcloud's `ai-platform local train`
// (docs/reference/ai-platform-training.md §8): runs a trainer module on this machine with the
// TF_CONFIG a training job would give it, no server involved. The cluster and TF_CONFIG are
// plan/local_train.h's; the processes are run by local_cluster.h. As in gcloud:
//   * the working directory is the parent of --package-path (default: of the current
//     directory), and the package is not installed: `python -m MODULE` imports it from there;
//   * the primary is "master" when the interpreter's TensorFlow is 1.x, else "chief" (with
//     gcloud's warning when TensorFlow cannot be imported);
//   * --worker-count / --parameter-server-count without --distributed only warn;
//   * the primary's exit code is the command's.
// The interpreter is --python, else $TRAINYARD_PYTHON, else /usr/bin/python3 (gcloud's is the
// `ml_engine/local_python` property, else `python` on PATH).
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/commands/environment.h"

namespace CLI {
class App;
}  // namespace CLI

namespace trainyard::cli {

class LocalTree {
 public:
  // Adds `local train` and its flags to `app`; CLI11 writes the flag values into this object,
  // so it must outlive the parse.
  explicit LocalTree(CLI::App& app);
  ~LocalTree();
  LocalTree(const LocalTree&) = delete;
  LocalTree& operator=(const LocalTree&) = delete;

  // After a successful parse: runs `local train` and returns its exit code (the primary's, or 1
  // when the processes could not be started), or nullopt when the command line did not choose
  // it. `env.python` is the interpreter when there is no --python; `user_args` are the words
  // after a bare `--`. Warnings and errors go to `err`; the trainer writes to this process's
  // stdout and stderr.
  std::optional<int> Run(const Environment& env,
                         const std::optional<std::vector<std::string>>& user_args,
                         std::ostream& err);

 private:
  struct Flags;
  std::unique_ptr<Flags> flags_;
};

}  // namespace trainyard::cli
