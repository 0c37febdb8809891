// Private to sched/: runs a short-lived program (nvidia-smi) without a shell and collects its
// output (os/command.h, with sched's errors). Thread-safe (no shared state). Blocks the caller
// until the program ends.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace trainyard::sched::internal {

struct ProgramOutput {
  int exit_code = 0;  // the exit status, or 128 + signal number when killed by a signal
  std::string out;    // stdout, at most the first MiB
  std::string err;    // stderr, at most the first MiB
};

// Runs `argv` (argv[0] looked up on PATH when it has no slash) through os/command.h, with stdin
// from /dev/null and the caller's environment. NOT_FOUND when the program does not exist;
// DEADLINE_EXCEEDED (after killing it) when it writes nothing and does not exit for
// `idle_timeout_ms`; os::RunCommand's other errors when it cannot be started. A non-zero exit is
// reported in the result.
Result<ProgramOutput> RunProgram(const std::vector<std::string>& argv, int idle_timeout_ms);

}  // namespace trainyard::sched::internal
