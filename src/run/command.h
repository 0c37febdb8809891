// Running a short-lived command and collecting what it prints (the Slurm clients: sbatch,
// squeue, sacct, scancel, scontrol). No shell; stdin from `input` (then closed), stdout and stderr
// read through pipes until the command exits; killed (SIGKILL to its process group) when it
// outlives `timeout`. Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "run/launcher.h"

namespace trainyard::run {

struct CommandResult {
  ExitStatus status;
  std::string out;
  std::string err;
};

// FAILED_PRECONDITION "Cannot run <program>: not found on PATH" (etc.) when it cannot be started;
// DEADLINE_EXCEEDED "<program> did not finish within N s" on timeout. Otherwise the result,
// whatever the exit status. Output beyond `max_output` bytes per stream is dropped (the first
// bytes are kept). `on_line`, when set, is called on the calling thread with each line of either
// stream as it arrives (without its newline; a last line without one when the stream ends).
using LineCallback = std::function<void(std::string_view line)>;
Result<CommandResult> RunCommand(const std::vector<std::string>& argv, const std::string& input,
                                 std::chrono::milliseconds timeout,
                                 std::size_t max_output = std::size_t{64} << 20,
                                 const LineCallback& on_line = {});

}  // namespace trainyard::run
