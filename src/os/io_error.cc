#include "os/io_error.h"

#include <array>
#include <cerrno>
#include <string>
#include <utility>

#include "base/disk_full.h"

namespace trainyard::os {
namespace {

struct ErrnoCode {
  int err;
  Code code;
};

// The errno values a caller can act on; any other is INTERNAL. (A full disk, ENOSPC and EDQUOT,
// is `DiskFullError`'s.)
constexpr std::array kErrnoCodes{
    ErrnoCode{ENOENT, Code::kNotFound},
    ErrnoCode{EEXIST, Code::kAlreadyExists},
    ErrnoCode{ELOOP, Code::kFailedPrecondition},  // a symbolic link, never followed
    ErrnoCode{EXDEV, Code::kFailedPrecondition},  // a way out of the directory
    ErrnoCode{ENOTDIR, Code::kFailedPrecondition},
    ErrnoCode{EISDIR, Code::kFailedPrecondition},
    ErrnoCode{ENOTEMPTY, Code::kFailedPrecondition},
    ErrnoCode{EACCES, Code::kPermissionDenied},
    ErrnoCode{EPERM, Code::kPermissionDenied},
    ErrnoCode{EROFS, Code::kPermissionDenied},
};

}  // namespace

Status IoError(std::string_view what, std::string_view path, int err, int* error) {
  if (error != nullptr) {
    *error = err;
  }
  const std::string action = std::string(what) + " " + std::string(path);
  if (IsDiskFull(err)) {
    return DiskFullError(action, Errno(err));
  }
  std::string message = "cannot " + action + ": " + Errno(err);
  for (const ErrnoCode& row : kErrnoCodes) {
    if (row.err == err) {
      return Status::FromCode(row.code, std::move(message));
    }
  }
  return Status::Internal(std::move(message));
}

}  // namespace trainyard::os
