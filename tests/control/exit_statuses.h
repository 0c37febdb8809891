// How a replica ended, as the executor's tests write it.
#pragma once

#include "base/exit_status.h"

namespace trainyard::testing {

inline ExitStatus Exited(int code) {
  return {.signaled = false, .code = code, .signal = 0};
}
inline ExitStatus Killed(int signal) {
  return {.signaled = true, .code = 0, .signal = signal};
}

}  // namespace trainyard::testing
