// Starting one child process from a `SpawnSpec`: the posix_spawn plumbing shared by
// `ProcessLauncher` (a replica's supervisor), `PipStager` (pip) and run/command.h (the Slurm
// clients). Internal to run/.
//
// The child runs without a shell in its own process group (pgid = its pid), with only the spec's
// `blocked_signals` blocked and every signal at its default action (the server may ignore SIGPIPE),
// stdin from /dev/null, stdout/stderr appended to the spec's files (or the spec's descriptors:
// run/command.h's pipes), and no other file descriptor
// (all of this process's descriptors from 3 up are closed in the child, whatever their
// close-on-exec flag). Thread-safe: plain functions of their arguments and the file system.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "run/file_view.h"
#include "run/run_as.h"

namespace trainyard::run::local {

// NAME=value pairs, in order; a name appears once.
using Environment = std::vector<std::pair<std::string, std::string>>;

// The search path when the environment has no PATH.
inline constexpr std::string_view kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

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

// This process's environment (`environ`) as it is now.
Environment CurrentEnvironment();

// `base` with each of `overrides` replacing the same-named variable in place, or appended when
// `base` has none. A name repeated in `overrides` keeps its last value.
Environment MergeEnvironment(Environment base, const Environment& overrides);

// The value of `name` in `env`, or `fallback` when it is not set.
std::string_view EnvValue(const Environment& env, std::string_view name,
                          std::string_view fallback = {});

// The file `program` (a spec's argv[0]) names, as the child will execute it. Without a '/', the
// first executable regular file of that name in the directories of `path_var` (a PATH value;
// empty entries are skipped; pass `kDefaultPath` for an unset PATH). With a '/', the
// file itself, relative to `working_dir` when not absolute. FAILED_PRECONDITION "Cannot run
// <program>: not found on PATH" / ": no such file" / ": not executable" / ": is a directory".
Result<std::string> FindProgram(const std::string& program, std::string_view path_var,
                                const std::string& working_dir);

// `path` made absolute against this process's working directory (unchanged when that fails): how
// a child started in another directory (pip in its target, a supervisor in the replica's) must be
// given it.
std::string AbsolutePath(const std::string& path);

// A pidfd for `pid` (always close-on-exec), or -1 with `errno` set. glibc 2.36's <sys/pidfd.h>
// lacks extern "C", so C++ calls the system call through this.
int OpenPidFd(int pid);

// Starts `spec` with the environment `MergeEnvironment(base_env, spec.env)`. Returns the child's
// pid, which the caller must reap. Errors as `Launcher::Start`.
Result<int> SpawnProcess(const SpawnSpec& spec, const Environment& base_env);

}  // namespace trainyard::run::local
