#include "os/file_status.h"

#include <cerrno>

#include <sys/stat.h>
#include <unistd.h>

#include "os/sys_error.h"

namespace trainyard::os {
namespace {

using internal::NoError;
using internal::SysError;

static_assert(kSetGroupIdBit == S_ISGID);

FileStatus FromStat(const struct stat& st) {
  FileType type = FileType::kOther;
  if (S_ISREG(st.st_mode)) {
    type = FileType::kRegular;
  } else if (S_ISDIR(st.st_mode)) {
    type = FileType::kDirectory;
  } else if (S_ISLNK(st.st_mode)) {
    type = FileType::kSymlink;
  }
  return FileStatus{.type = type,
                    .mode = static_cast<unsigned>(st.st_mode) & kModeBits,
                    .uid = static_cast<unsigned>(st.st_uid),
                    .gid = static_cast<unsigned>(st.st_gid),
                    .device = static_cast<std::uint64_t>(st.st_dev),
                    .inode = static_cast<std::uint64_t>(st.st_ino),
                    .size = static_cast<std::uint64_t>(st.st_size)};
}

}  // namespace

Result<FileStatus> StatPath(const std::string& path, int* error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return SysError(errno, error, "inspect", path);
  }
  NoError(error);
  return FromStat(st);
}

Result<FileStatus> StatLink(const std::string& path, int* error) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    return SysError(errno, error, "inspect", path);
  }
  NoError(error);
  return FromStat(st);
}

Result<FileStatus> StatFd(int fd, int* error) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;  // before std::to_string, which may change it
    return SysError(err, error, "inspect descriptor", std::to_string(fd));
  }
  NoError(error);
  return FromStat(st);
}

Status ChangeMode(const std::string& path, unsigned mode, int* error) {
  if (::chmod(path.c_str(), static_cast<mode_t>(mode)) != 0) {
    return SysError(errno, error, "change the mode of", path);
  }
  NoError(error);
  return {};
}

Status ChangeGroup(const std::string& path, unsigned gid, bool follow_link, int* error) {
  const auto no_owner_change = static_cast<uid_t>(-1);
  const int rc = follow_link ? ::chown(path.c_str(), no_owner_change, static_cast<gid_t>(gid))
                             : ::lchown(path.c_str(), no_owner_change, static_cast<gid_t>(gid));
  if (rc != 0) {
    return SysError(errno, error, "change the group of", path);
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
  return SysError(errno, error, "create", path);
}

unsigned SetUmask(unsigned mask) {
  return static_cast<unsigned>(::umask(static_cast<mode_t>(mask)));
}

}  // namespace trainyard::os
