// Internal to cli/: the `trainyard ai custom-jobs …` and `ai hp-tuning-jobs …` command trees
// (Vertex AI custom training, issue #20) on CLI11: the verbs, their flags (gcloud 528's names)
// and help, and the dispatch to vertex_commands.h once the command line is parsed.
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

class VertexTree {
 public:
  // Adds `ai` and its groups to `app`; CLI11 writes the flag values into this object, so it must
  // outlive the parse.
  explicit VertexTree(CLI::App& app);
  ~VertexTree();
  VertexTree(const VertexTree&) = delete;
  VertexTree& operator=(const VertexTree&) = delete;

  // After a successful parse: runs the chosen verb and returns its exit code, or nullopt when
  // the command line chose none. None takes words after a bare `--`.
  std::optional<int> Run(const Environment& env,
                         const std::optional<std::vector<std::string>>& user_args,
                         std::ostream& out, std::ostream& err);

 private:
  struct Verbs;
  std::unique_ptr<Verbs> verbs_;
};

}  // namespace trainyard::cli
