// The command line of a replica's supervisor (run/local/supervisor.h):
//
//   trainyard-replica --log LOG --exit EXIT [--container NAME] [--user UID:GID] [--env-fd FD]
//                     [--hide DIR] [--bind PATH]... [--ro-bind PATH]... [--private DIR]...
//                     [--private-root DIR] [--held]
//                     -- PROGRAM ARGS...
//
// (`--container`: PROGRAM is a container runtime's client running the container NAME, whose exit
// status says a signal as 128 + N: see ContainerExitStatus. `--user`: PROGRAM runs with these
// ids, `serve --run-as`, while the supervisor keeps the server's to write LOG and EXIT.
// `--env-fd`: PROGRAM's environment is read from descriptor FD, as EncodeEnvironment writes it;
// the supervisor itself runs with `kSupervisorEnvironment` only, so nothing of the job's (an
// LD_PRELOAD, say) reaches the root process. Without it PROGRAM gets the supervisor's own.
// `--hide`, `--bind`, `--ro-bind`, `--private`, `--private-root`: PROGRAM's view of the server's
// files (run/file_view.h: hidden, writable, readable, private_dirs, private_root), in its own
// mount namespace. `--held`: PROGRAM is not started before the supervisor gets kHoldRelease;
// a stop signal meanwhile ends it, PROGRAM never run: run/launcher.h ProcessSpec::held.)
// built by `ProcessLauncher::Start`, parsed by the supervisor, and recognized by
// `ProcessLauncher::Adopt` in /proc/<pid>/cmdline. Pure functions; thread-safe.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <signal.h>

#include "run/file_view.h"
#include "run/launcher.h"

namespace trainyard::run::local {

inline constexpr std::string_view kSupervisorName = "trainyard-replica";

// The whole environment the launcher starts a supervisor with: a fixed PATH, and nothing else.
inline constexpr std::string_view kSupervisorPath = "/usr/sbin:/usr/bin:/sbin:/bin";

// The signals a stop request sends to a replica's group. The supervisor has them blocked from
// its start (the launcher spawns it so), rather than ignored: one that arrives while the trainer
// is being started then stays pending and reaches the trainer, where an ignored one would be lost.
inline constexpr std::array<int, 3> kStopSignals = {SIGTERM, SIGINT, SIGHUP};

// What lets a held supervisor (`--held`) start PROGRAM; blocked from its start, as the stop
// signals are, so that one sent at once is not lost.
inline constexpr int kHoldRelease = SIGUSR1;

struct SupervisorArgs {
  std::string log_path;
  std::string exit_path;
  std::string container;          // "" unless PROGRAM runs a container
  std::string user;               // "UID:GID" PROGRAM runs as, "" for the supervisor's own
  int env_fd = -1;                // where PROGRAM's environment is read from; -1: the supervisor's
  FileView view;                  // empty: PROGRAM sees the files the supervisor sees
  bool held = false;              // PROGRAM waits for kHoldRelease
  std::vector<std::string> argv;  // PROGRAM (a path) and its arguments

  bool operator==(const SupervisorArgs&) const = default;
};

// The command that runs `args` under the supervisor executable `supervisor`.
std::vector<std::string> SupervisorCommand(const std::string& supervisor,
                                           const SupervisorArgs& args);

// The arguments after the program's own name; nullopt when they are not of the form above
// (--log and --exit, --container, --user, --env-fd and --hide optionally, each once, the view's
// lists repeated, every value non-empty, in any order, FD a non-negative number, and a PROGRAM).
std::optional<SupervisorArgs> ParseSupervisorArgs(const std::vector<std::string>& args);

// `env` as the supervisor reads it from `--env-fd`: each NAME=VALUE followed by a NUL, as
// /proc/<pid>/environ holds an environment.
std::string EncodeEnvironment(const std::vector<std::pair<std::string, std::string>>& env);

// The NAME=VALUE entries of EncodeEnvironment's text, in order; empty entries and entries without
// a name are left out.
std::vector<std::string> DecodeEnvironment(std::string_view text);

// How a container ended, from its runtime client's exit status `code`: container runtimes (as
// Docker and podman do, and their init) report a container killed by signal N as 128 + N.
ExitStatus ContainerExitStatus(int code);

// Whether `command` (a whole command line, program name first) is a supervisor's with these
// log and exit files.
bool IsSupervisorCommand(const std::vector<std::string>& command, std::string_view log_path,
                         std::string_view exit_path);

}  // namespace trainyard::run::local
