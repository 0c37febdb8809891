// How os/ answers a failed system call: the path (or what else was acted on) and the system's own
// words, with the google.rpc code a caller can act on. The one errno → Status mapping of os/.
#pragma once

#include <string_view>

#include "base/status.h"

namespace trainyard::os {

// "cannot <what> <path>: <errno's words>" with the code `err` implies (one table, io_error.cc):
//   ENOENT                                   NOT_FOUND
//   EEXIST                                   ALREADY_EXISTS
//   ELOOP, EXDEV, ENOTDIR, EISDIR, ENOTEMPTY FAILED_PRECONDITION (a link, a way out of the
//                                            directory, or an entry of the wrong kind in the way)
//   EACCES, EPERM, EROFS                     PERMISSION_DENIED
//   ENOSPC, EDQUOT                           RESOURCE_EXHAUSTED, worded by `DiskFullError`
//   anything else                            INTERNAL
// `*error` (when given) gets `err`: for the functions that also hand the errno to callers who
// word the error their own way (os/file.h, os/file_status.h, os/process.h).
Status IoError(std::string_view what, std::string_view path, int err, int* error = nullptr);

// `*error` (when given) becomes 0: the call it would have reported on succeeded.
inline void NoError(int* error) {
  if (error != nullptr) {
    *error = 0;
  }
}

}  // namespace trainyard::os
