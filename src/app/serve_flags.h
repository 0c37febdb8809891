// `trainyard serve`'s flags: the command line of the composition root, kept beside the
// `ServeOptions` they fill so that a new option and its flag change together.
#pragma once

#include "app/serve.h"

namespace CLI {
class App;
}  // namespace CLI

namespace trainyard::app {

// Adds every flag of `trainyard serve` to `serve` (its CLI11 subcommand), bound to `options`,
// whose values are the defaults (the caller sets `data_dir`'s). Once `serve` has parsed,
// `options` holds what the flags said; a malformed `--python-for` fails the parse with a
// CLI::ValidationError. `options` must outlive the parse; the flags' own state lives in `serve`.
void AddServeFlags(CLI::App& serve, ServeOptions& options);

}  // namespace trainyard::app
