// Internal to cli/: `trainyard auth`, the server's tokens (issue #17), managed on its data dir
// (store/token_store.h), so they work with the server running or not:
//   trainyard auth create-token NAME --role viewer|editor|admin [--project P]... [--expires D]
//   trainyard auth list
//   trainyard auth revoke NAME
// each with [--data-dir DIR] (default $TRAINYARD_HOME, else ~/.local/share/trainyard).
// `create-token` prints the token alone on stdout, once (it is stored only as a hash), and what
// it grants on stderr.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "base/clock.h"
#include "cli/commands/environment.h"

namespace CLI {
class App;
}  // namespace CLI

namespace trainyard::cli {

class AuthTree {
 public:
  // Adds `auth` and its verbs to `app`; CLI11 writes the flag values into this object, so it
  // must outlive the parse. `default_data_dir` is the data dir without --data-dir.
  AuthTree(CLI::App& app, std::string default_data_dir);
  ~AuthTree();
  AuthTree(const AuthTree&) = delete;
  AuthTree& operator=(const AuthTree&) = delete;

  // After a successful parse: runs the chosen verb and returns its exit code (0, or 1 with the
  // reason on `err`), or nullopt when the command line chose none of them.
  std::optional<int> Run(const Clock& clock, std::ostream& out, std::ostream& err);

 private:
  struct Flags;
  std::unique_ptr<Flags> flags_;
};

}  // namespace trainyard::cli
