// Running a command and collecting what it prints: stdin from `input` (then closed) or
// /dev/null, stdout and stderr read through pipes until the command exits, and, with a timeout,
// SIGKILL to its process group when it outlives it. On os/spawn.h. Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/exit_status.h"
#include "base/status.h"
#include "os/environment.h"

namespace trainyard::os {

struct CommandResult {
  ExitStatus status;
  std::string out;
  std::string err;  // empty with `Stderr::kMerge` (in `out`) or `kDiscard`
};

using LineCallback = std::function<void(std::string_view line)>;

struct CommandOptions {
  std::string input;  // written to the command's stdin; empty: stdin is /dev/null
  // Killed (SIGKILL to its process group) when it runs longer; zero: waited for however long.
  std::chrono::milliseconds timeout{0};
  // With a timeout: it counts from the command's last output instead of its start.
  bool idle_timeout = false;
  std::size_t max_output = std::size_t{64} << 20;  // per stream; the first bytes are kept
  enum class Stderr { kCapture, kMerge, kDiscard } err = Stderr::kCapture;
  // Called on the calling thread with each line of either stream as it arrives (without its
  // newline; a last line without one when the stream ends).
  LineCallback on_line;
  std::string working_dir;  // empty: this process's
  // Over this process's environment.
  Environment env;
  // Its own process group (killed whole on timeout); otherwise this process's (a command the
  // terminal's Ctrl-C should reach; the timeout then kills the command alone).
  bool new_process_group = true;
};

// FAILED_PRECONDITION "Cannot run <program>: not found on PATH" (etc., os/spawn.h) when it cannot
// be started; DEADLINE_EXCEEDED "<program> did not finish within N s" on timeout. Otherwise the
// result, whatever the exit status. `start_errno` as os::Spawn's.
Result<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                 const CommandOptions& options, int* start_errno = nullptr);

}  // namespace trainyard::os
