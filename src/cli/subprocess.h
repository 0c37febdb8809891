// Runs a program to completion without a shell: an argument vector, a working directory, the
// caller's environment; stdout and stderr are captured together. Thread-safe (no shared state).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/status.h"

namespace trainyard::cli {

struct ProcessResult {
  int exit_code = 0;   // the exit status, or 128 + signal number when killed by a signal
  std::string output;  // stdout and stderr, interleaved as written
};

// `argv[0]` is an absolute path to the program (no PATH search). Fails only when the program
// cannot be started; a non-zero exit is reported in the result.
Result<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                 const std::filesystem::path& working_dir);

}  // namespace trainyard::cli
