// This process and its children: its pid, effective user and terminal; signals blocked and
// waited for in a thread; and a started child (os/spawn.h's `Child`) signalled, polled and
// reaped. Errors name the process and the system's reason (`IoError`, os/io_error.h); `int*
// error`, when given, gets the errno (0 on success). Thread-safe; signal masks are the calling
// thread's.
#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <vector>

#include "base/exit_status.h"
#include "base/status.h"
#include "os/spawn.h"

namespace trainyard::os {

// This process's standard descriptors.
inline constexpr int kStdin = 0;
inline constexpr int kStdout = 1;
inline constexpr int kStderr = 2;

int CurrentPid();
unsigned EffectiveUid();

// Whether `fd` is a terminal (isatty).
bool IsTerminal(int fd);

// Blocks `signals` in the calling thread, for good (threads it starts later inherit the mask).
void BlockSignals(std::span<const int> signals);

// Waits up to `timeout` (zero: only looks) for one of `signals`, which must be blocked in the
// calling thread, and takes it: the signal, or 0 when none came (sigtimedwait).
int TakeSignal(std::span<const int> signals, std::chrono::milliseconds timeout);

// Blocks `signals` in the calling thread while it lives, so that they can be waited for; on the
// way out consumes those of them that arrived meanwhile (unless they were blocked before) and
// unblocks them again.
class SignalBlock {
 public:
  explicit SignalBlock(std::vector<int> signals);
  ~SignalBlock();
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

  // Waits up to `timeout` for one of the blocked signals; returns it, or 0 when none came.
  int Wait(std::chrono::milliseconds timeout) const { return TakeSignal(signals_, timeout); }

 private:
  std::vector<int> signals_;
  std::vector<int> newly_blocked_;  // those that were not blocked before
};

// Sends `signal` to `child`, or (`SignalGroup`) to the process group it leads (started with
// `new_process_group`). "cannot signal process [group] <pid>: <why>" (ESRCH, INTERNAL, once
// it is reaped, or for a group, once all of it has).
Status Signal(const Child& child, int signal, int* error = nullptr);
Status SignalGroup(const Child& child, int signal, int* error = nullptr);

// Whether `child` has ended, without reaping it (waitid WNOWAIT): until it is reaped its pid,
// and so its process group id, cannot be reused. True too when it is no child of this process
// (any more): there is nothing left to wait for.
bool HasEnded(const Child& child);

// How `child` ended, reaping it, once it has; nullopt while it runs (waitpid WNOHANG). "cannot
// wait for process <pid>: <why>" (ECHILD, INTERNAL, when it is no child of this process).
Result<std::optional<ExitStatus>> TryWait(const Child& child, int* error = nullptr);

}  // namespace trainyard::os
