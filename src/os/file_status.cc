#include "os/file_status.h"

#include <cerrno>

#include <sys/stat.h>
#include <unistd.h>

#include "os/io_error.h"
#include "os/stat_info.h"

namespace trainyard::os {
namespace {

static_assert(kSetGroupIdBit == S_ISGID);

}  // namespace

Result<FileStatus> StatPath(const std::string& path, int* error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return IoError("inspect", path, errno, error);
  }
  NoError(error);
  return internal::ToFileStatus(st);
}

Result<FileStatus> StatLink(const std::string& path, int* error) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    return IoError("inspect", path, errno, error);
  }
  NoError(error);
  return internal::ToFileStatus(st);
}

Result<FileStatus> StatFd(int fd, int* error) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;  // before std::to_string, which may change it
    return IoError("inspect descriptor", std::to_string(fd), err, error);
  }
  NoError(error);
  return internal::ToFileStatus(st);
}

Status ChangeMode(const std::string& path, unsigned mode, int* error) {
  if (::chmod(path.c_str(), static_cast<mode_t>(mode)) != 0) {
    return IoError("change the mode of", path, errno, error);
  }
  NoError(error);
  return {};
}

Status ChangeGroup(const std::string& path, unsigned gid, bool follow_link, int* error) {
  const auto no_owner_change = static_cast<uid_t>(-1);
  const int rc = follow_link ? ::chown(path.c_str(), no_owner_change, static_cast<gid_t>(gid))
                             : ::lchown(path.c_str(), no_owner_change, static_cast<gid_t>(gid));
  if (rc != 0) {
    return IoError("change the group of", path, errno, error);
  }
  NoError(error);
  return {};
}

Result<bool> MakeDirectory(const std::string& path, unsigned mode, int* error) {
  if (::mkdir(path.c_str(), static_cast<mode_t>(mode)) == 0) {
    NoError(error);
    return true;
  }
  if (errno == EEXIST) {
    NoError(error);
    return false;
  }
  return IoError("create", path, errno, error);
}

unsigned SetUmask(unsigned mask) {
  return static_cast<unsigned>(::umask(static_cast<mode_t>(mask)));
}

}  // namespace trainyard::os
