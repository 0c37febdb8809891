// Internal to os/: how its functions report a system call that failed.
#pragma once

#include <string_view>

#include "base/status.h"

namespace trainyard::os::internal {

// INTERNAL "Cannot <what> <subject>: <the system's words for err>"; `*error` (when given) gets
// `err`.
Status SysError(int err, int* error, std::string_view what, std::string_view subject);

// `*error` (when given) becomes 0: the call succeeded.
inline void NoError(int* error) {
  if (error != nullptr) {
    *error = 0;
  }
}

}  // namespace trainyard::os::internal
