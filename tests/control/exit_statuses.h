// How a replica ended, as the executor's tests write it.
#pragma once

#include "run/launcher.h"

namespace trainyard::testing {

inline run::ExitStatus Exited(int code) {
  return {.signaled = false, .code = code, .signal = 0};
}
inline run::ExitStatus Killed(int signal) {
  return {.signaled = true, .code = 0, .signal = signal};
}

}  // namespace trainyard::testing
