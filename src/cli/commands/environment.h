// What the `trainyard` command line reads from its environment, and how every verb picks the
// server and project it talks to. Pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "access/visible_projects.h"

namespace trainyard::cli {

struct Environment {
  std::optional<std::string> server;     // $TRAINYARD_SERVER: the API server's URL
  std::optional<std::string> project;    // $TRAINYARD_PROJECT
  std::optional<std::string> region;     // $TRAINYARD_REGION
  std::optional<std::string> home;       // $TRAINYARD_HOME: the data directory of `serve`
  std::optional<std::string> user_home;  // $HOME
  std::optional<std::string> python;     // $TRAINYARD_PYTHON: `local train`'s interpreter
  std::optional<std::string> token;      // $TRAINYARD_TOKEN: the bearer token to send
  std::optional<std::string> ca_file;    // $TRAINYARD_CA_FILE: an https server's CA
  bool stderr_is_tty = false;  // stderr is a terminal (and $TERM not "dumb"): live status lines
};

// Where `trainyard serve` listens by default.
inline constexpr std::string_view kDefaultServer = "http://127.0.0.1:8470/";
// The project a command uses when none is named: the one a server always offers (access/).
inline constexpr std::string_view kDefaultProject = access::kDefaultProject;

// `--server`, else $TRAINYARD_SERVER, else `kDefaultServer`. An empty value counts as unset.
std::string ResolveServer(const std::optional<std::string>& flag, const Environment& env);

// `--project`, else $TRAINYARD_PROJECT, else `kDefaultProject`. An empty value counts as unset.
std::string ResolveProject(const std::optional<std::string>& flag, const Environment& env);

}  // namespace trainyard::cli
