// Internal to cli/: the command tree and the verbs behind it. `Run` is `Main` without the
// process: arguments, output streams and environment are parameters, so tests can drive it.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "cli/submit_flags.h"

namespace CLI {
class App;
}  // namespace CLI

namespace trainyard::cli {

struct Environment {
  std::optional<std::string> project;    // $TRAINYARD_PROJECT
  std::optional<std::string> region;     // $TRAINYARD_REGION
  std::optional<std::string> home;       // $TRAINYARD_HOME: the data directory of `serve`
  std::optional<std::string> user_home;  // $HOME
};

// `args` excludes the program name. Returns the exit code: 0, 1 for a failed command, 2 for a
// command line that does not parse.
int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const Environment& env);

// Registers the `jobs submit training` flags (also used by `jobs validate`) on `command`.
void AddTrainingFlags(CLI::App& command, RawTrainingFlags& raw,
                      std::optional<std::string>& project);

// The verbs; each returns the exit code and writes its result to `out`, problems to `err`.
int RunSubmitTraining(const RawTrainingFlags& raw, bool dry_run, const catalog::Catalog& catalog,
                      std::ostream& out, std::ostream& err);
int RunValidate(const RawTrainingFlags& raw, const catalog::Catalog& catalog, std::ostream& out,
                std::ostream& err);
int RunCatalogListing(std::string_view listing, std::string_view format,
                      const catalog::Catalog& catalog, std::ostream& out, std::ostream& err);

}  // namespace trainyard::cli
