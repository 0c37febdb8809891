#include "os/io_error.h"

#include <cerrno>
#include <string>
#include <utility>

#include "base/disk_full.h"

namespace trainyard::os {

Status IoError(std::string_view what, std::string_view path, int err) {
  std::string message = "cannot " + std::string(what) + " " + std::string(path) + ": " + Errno(err);
  switch (err) {
    case ENOENT:
      return Status::NotFound(std::move(message));
    case EEXIST:
      return Status::AlreadyExists(std::move(message));
    case ELOOP:
    case EXDEV:
    case ENOTDIR:
    case EISDIR:
    case ENOTEMPTY:
      return Status::FailedPrecondition(std::move(message));
    case EACCES:
    case EPERM:
    case EROFS:
      return Status::PermissionDenied(std::move(message));
    default:
      break;
  }
  if (IsDiskFull(err)) {
    return DiskFullError(std::string(what) + " " + std::string(path), Errno(err));
  }
  return Status::Internal(std::move(message));
}

}  // namespace trainyard::os
