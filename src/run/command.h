// The Slurm and podman clients' way to run a short-lived command (sbatch, squeue, sacct, scancel,
// scontrol, podman): os/command.h with stdin from `input`, its own process group killed on
// `timeout`, and each stream captured.
#pragma once

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"
#include "os/command.h"

namespace trainyard::run {

using os::CommandResult;
using os::LineCallback;

// As os::RunCommand: FAILED_PRECONDITION "Cannot run <program>: not found on PATH" (etc.) when it
// cannot be started; DEADLINE_EXCEEDED "<program> did not finish within N s" on timeout.
// Otherwise the result, whatever the exit status. Output beyond `max_output` bytes per stream is
// dropped (the first bytes are kept); `on_line` sees each line of either stream as it arrives.
inline Result<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                        const std::string& input, std::chrono::milliseconds timeout,
                                        std::size_t max_output = std::size_t{64} << 20,
                                        const LineCallback& on_line = {}) {
  return os::RunCommand(argv, {.input = input,
                               .timeout = std::max(timeout, std::chrono::milliseconds(1)),
                               .max_output = max_output,
                               .on_line = on_line});
}

}  // namespace trainyard::run
