// How a process ended: a plain value, read from a supervisor's exit file (run/exit_file.h) or
// reported by a launcher, and judged by the replicas' exit rules (control/reconcile/).
#pragma once

#include <optional>
#include <string>

#include "base/clock.h"

namespace trainyard {

struct ExitStatus {
  bool signaled = false;  // killed by a signal (then `signal`), else exited (then `code`)
  int code = 0;
  int signal = 0;
  // When it ended, as its exit file records (run/exit_file.h); unset when that is not known (a
  // child reaped as it ended, or an exit file written before the time was recorded).
  std::optional<WallTime> ended;

  bool Succeeded() const { return !signaled && code == 0; }
  // "exited with a non-zero status of 1" / "exited with status 0" /
  // "was terminated by signal 9 (SIGKILL)"
  std::string Describe() const;
};

}  // namespace trainyard
