// Starting one child process from a `ProcessSpec`: the posix_spawn plumbing shared by
// `ProcessLauncher` (replicas) and `PipStager` (pip). Internal to run/local/.
//
// The child runs without a shell in its own process group (pgid = its pid), with an empty signal
// mask and every signal at its default action (the server may ignore SIGPIPE), stdin from
// /dev/null, stdout/stderr appended to the spec's files, and no other file descriptor (all of
// this process's descriptors from 3 up are closed in the child, whatever their close-on-exec
// flag). Thread-safe: plain functions of their arguments and the file system.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "run/launcher.h"

namespace trainyard::run::local {

// NAME=value pairs, in order; a name appears once.
using Environment = std::vector<std::pair<std::string, std::string>>;

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
// empty entries are skipped; unset PATH is "/usr/local/bin:/usr/bin:/bin"). With a '/', the
// file itself, relative to `working_dir` when not absolute. FAILED_PRECONDITION "Cannot run
// <program>: not found on PATH" / ": no such file" / ": not executable" / ": is a directory".
Result<std::string> FindProgram(const std::string& program, std::string_view path_var,
                                const std::string& working_dir);

// A pidfd for `pid` (always close-on-exec), or -1 with `errno` set. glibc 2.36's <sys/pidfd.h>
// lacks extern "C", so C++ calls the system call through this.
int OpenPidFd(int pid);

// Starts `spec` with the environment `MergeEnvironment(base_env, spec.env)`. Creates the working
// directory and the output files' parent directories when missing. When `stdout_path` and
// `stderr_path` are the same file, stderr is a duplicate of stdout (one open file). An empty
// working dir keeps this process's; an empty output path is /dev/null. Returns the child's pid,
// which the caller must reap. Errors as `Launcher::Start`.
Result<int> SpawnProcess(const ProcessSpec& spec, const Environment& base_env);

}  // namespace trainyard::run::local
