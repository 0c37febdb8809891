// A child's environment and program: the variables it gets (NAME=value pairs) and the file its
// argv[0] names, looked up as execvp would but with the house's errors. Thread-safe: plain
// functions of their arguments, this process's environment and the file system.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trainyard::os {

// NAME=value pairs, in order; a name appears once.
using Environment = std::vector<std::pair<std::string, std::string>>;

// The search path when the environment has no PATH.
inline constexpr std::string_view kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

// This process's environment (`environ`) as it is now.
Environment CurrentEnvironment();

// `base` with each of `overrides` replacing the same-named variable in place, or appended when
// `base` has none. A name repeated in `overrides` keeps its last value.
Environment MergeEnvironment(Environment base, const Environment& overrides);

// The value of `name` in `env`, or `fallback` when it is not set.
std::string_view EnvValue(const Environment& env, std::string_view name,
                          std::string_view fallback = {});

// The file `program` (a child's argv[0]) names, as the child will execute it. Without a '/', the
// first executable regular file of that name in the directories of `path_var` (a PATH value;
// empty entries are skipped; pass `kDefaultPath` for an unset PATH). With a '/', the
// file itself, relative to `working_dir` when not absolute. FAILED_PRECONDITION "Cannot run
// <program>: not found on PATH" / ": no such file" / ": not executable" / ": is a directory".
// `error`, when given, gets the errno an exec would have reported (ENOENT, EACCES, EISDIR).
Result<std::string> FindProgram(const std::string& program, std::string_view path_var,
                                const std::string& working_dir, int* error = nullptr);

// `path` made absolute against this process's working directory (unchanged when that fails): how
// a child started in another directory must be given it.
std::string AbsolutePath(const std::string& path);

}  // namespace trainyard::os
