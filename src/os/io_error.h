// How the file effects of os/ (dir.h, file_handle.h, atomic_file.h) answer a failed system call:
// the path and the system's own words, with the google.rpc code a caller can act on.
#pragma once

#include <string_view>

#include "base/status.h"

namespace trainyard::os {

// "cannot <what> <path>: <errno's words>" with the code `err` implies:
//   ENOENT                                   NOT_FOUND
//   EEXIST                                   ALREADY_EXISTS
//   ELOOP, EXDEV, ENOTDIR, EISDIR, ENOTEMPTY FAILED_PRECONDITION (a link, a way out of the
//                                            directory, or an entry of the wrong kind in the way)
//   EACCES, EPERM, EROFS                     PERMISSION_DENIED
//   ENOSPC, EDQUOT                           RESOURCE_EXHAUSTED, worded by `DiskFullError`
//   anything else                            INTERNAL
Status IoError(std::string_view what, std::string_view path, int err);

}  // namespace trainyard::os
