// Starting one child process of the job launcher from a `SpawnSpec`: `ProcessLauncher` (a
// replica's supervisor) and `PipStager` (pip). What is not the launcher's own (output files, the
// working directory created, the sandbox) is os/spawn.h's. Internal to run/.
//
// The child runs without a shell in its own process group (pgid = its pid), with only the spec's
// `blocked_signals` blocked and every signal at its default action (the server may ignore SIGPIPE),
// stdin from /dev/null, stdout/stderr appended to the spec's files (or the spec's descriptors),
// and no other file descriptor
// (all of this process's descriptors from 3 up are closed in the child, whatever their
// close-on-exec flag). Thread-safe: plain functions of their arguments and the file system.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "os/environment.h"
#include "os/spawn.h"
#include "run/file_view.h"
#include "run/run_as.h"

namespace trainyard::run::local {

using os::AbsolutePath;
using os::CurrentEnvironment;
using os::Environment;
using os::EnvValue;
using os::FindProgram;
using os::kDefaultPath;
using os::MergeEnvironment;
using os::OpenPidFd;

// One process to start.
struct SpawnSpec {
  std::vector<std::string> argv;     // argv[0] is looked up as `FindProgram` says
  Environment env;                   // set over the base environment
  std::string working_dir;           // created (with parents) when missing; empty: this process's
  std::vector<int> blocked_signals;  // blocked in the child from its start; all others are not
  // Appended to, created (with their directories) when missing; empty: /dev/null. The same path
  // for both: stderr is a duplicate of stdout (one open file).
  std::string stdout_path;
  std::string stderr_path;
  // Descriptors the child gets as its stdin, stdout and stderr instead of /dev/null and the paths
  // above (-1: not used), e.g. pipe ends; the caller keeps and closes them.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  // Set: the child runs with this user's ids and no supplementary groups (`serve --run-as`).
  std::optional<RunAs> user;
  // With a `user`: what the child sees of the server's files, in a mount namespace of its own
  // (run/local/sandbox.h); the output files are opened before it is entered. The child is then
  // killed, and with it everything the program started, when the calling thread ends: that
  // thread waits for it.
  std::optional<FileView> view;
};

// Starts `spec` with the environment `MergeEnvironment(base_env, spec.env)`. Returns the child's
// pid, which the caller must reap. Errors as `Launcher::Start`.
Result<int> SpawnProcess(const SpawnSpec& spec, const Environment& base_env);

}  // namespace trainyard::run::local
