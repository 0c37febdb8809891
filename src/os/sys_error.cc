#include "os/sys_error.h"

#include <fmt/format.h>

namespace trainyard::os::internal {

Status SysError(int err, int* error, std::string_view what, std::string_view subject) {
  if (error != nullptr) {
    *error = err;
  }
  return Status::Internal(fmt::format("Cannot {} {}: {}", what, subject, Errno(err)));
}

}  // namespace trainyard::os::internal
