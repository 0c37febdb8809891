// Internal to cli/: the `trainyard jobs …` command tree on CLI11: the verbs, their flags and
// help, and the dispatch to the verb functions of commands.h once the command line is parsed.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cli/commands/commands.h"
#include "cli/commands/environment.h"

namespace CLI {
class App;
}  // namespace CLI

namespace trainyard::cli {

// `--server`, `--project`, `--token-file` and `--ca-file`, the same on every verb that talks to
// the server.
struct TargetFlags {
  std::optional<std::string> server;
  std::optional<std::string> project;
  std::optional<std::string> token_file;
  std::optional<std::string> ca_file;

  void AddTo(CLI::App& command);
  ApiTarget Resolve(const Environment& env) const;
};

class JobsTree {
 public:
  // Adds `jobs` and its verbs to `app`; CLI11 writes the flag values into this object, so it
  // must outlive the parse.
  explicit JobsTree(CLI::App& app);
  ~JobsTree();
  JobsTree(const JobsTree&) = delete;
  JobsTree& operator=(const JobsTree&) = delete;

  // After a successful parse: runs the chosen `jobs` verb and returns its exit code, or nullopt
  // when the command line chose none. `user_args` are the words after a bare `--`, which only
  // `submit training` and `validate` take.
  std::optional<int> Run(const Environment& env,
                         const std::optional<std::vector<std::string>>& user_args,
                         const catalog::Catalog& catalog, std::ostream& out, std::ostream& err);

 private:
  struct Verbs;
  std::unique_ptr<Verbs> verbs_;
};

}  // namespace trainyard::cli
