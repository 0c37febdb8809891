// Internal to cli/: `trainyard quota …` and `trainyard priority-class …` (issue #34), the sharing
// policy's admin verbs over trainyard v1 (api/trainyard/sharing.h), with the token like
// the other API verbs:
//   trainyard quota set PROJECT [--accelerator TYPE=N]… [--cpus N] [--memory 256Gi] [--jobs N]
//                               [--weight N]   (replaces the project's whole quota)
//   trainyard quota list | describe PROJECT | delete PROJECT
//   trainyard priority-class set NAME VALUE | list | delete NAME
// The server checks the values (one violation per bad one); the CLI only splits TYPE=N.
#pragma once

#include <memory>
#include <optional>
#include <ostream>

#include "cli/commands/environment.h"

namespace CLI {
class App;
}  // namespace CLI

namespace trainyard::cli {

class SharingTree {
 public:
  // Adds `quota` and `priority-class` to `app`; must outlive the parse.
  explicit SharingTree(CLI::App& app);
  ~SharingTree();
  SharingTree(const SharingTree&) = delete;
  SharingTree& operator=(const SharingTree&) = delete;

  // After a successful parse: runs the chosen verb, or nullopt when none of these was chosen.
  std::optional<int> Run(const Environment& env, std::ostream& out, std::ostream& err);

 private:
  struct Verbs;
  std::unique_ptr<Verbs> verbs_;
};

}  // namespace trainyard::cli
