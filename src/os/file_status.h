// A file's type, owner, group, mode, size and time (the one description of a file os/ gives:
// these functions', `Dir::Stat`'s and `File::Info`'s), and changing them: stat(2) and lstat(2) as a
// plain value, chmod, chown of the group, mkdir and the process's umask (the data directory's
// sharing with `serve --run-as`'s group, app/job_isolation.h). Errors name the path and the
// system's reason (`IoError`, os/io_error.h); `int* error`, when given, gets the errno (0 on
// success), for callers that word the error their own way. Thread-safe, but for `SetUmask` (the
// whole process's).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace trainyard::os {

enum class FileType : std::uint8_t { kRegular, kDirectory, kSymlink, kOther };

// The mode bits beside the permissions (st_mode & 07777 holds them all).
inline constexpr unsigned kSetGroupIdBit = 02000;  // S_ISGID
inline constexpr unsigned kModeBits = 07777;       // permissions, set-id and sticky bits

struct FileStatus {
  FileType type = FileType::kOther;
  unsigned mode = 0;  // st_mode & kModeBits
  unsigned uid = 0;
  unsigned gid = 0;
  std::uint64_t device = 0;  // st_dev and st_ino: the file's identity
  std::uint64_t inode = 0;
  std::int64_t size = 0;      // in bytes
  std::int64_t mtime_ns = 0;  // the last change of its contents, in ns since the epoch

  bool regular() const { return type == FileType::kRegular; }
  bool directory() const { return type == FileType::kDirectory; }
};

// stat(2) of `path`, a symbolic link followed. "cannot inspect <path>: <why>".
Result<FileStatus> StatPath(const std::string& path, int* error = nullptr);

// lstat(2) of `path`: a symbolic link itself (type kSymlink). As `StatPath`.
Result<FileStatus> StatLink(const std::string& path, int* error = nullptr);

// fstat(2) of `fd`. "cannot inspect descriptor <fd>: <why>".
Result<FileStatus> StatFd(int fd, int* error = nullptr);

// chmod(2): `path`'s mode (kModeBits) becomes `mode`, a link followed. "cannot change the
// mode of <path>: <why>".
Status ChangeMode(const std::string& path, unsigned mode, int* error = nullptr);

// `path`'s group becomes `gid`, its owner unchanged: chown(2), or lchown(2) (a symbolic link
// itself) without `follow_link`. "cannot change the group of <path>: <why>".
Status ChangeGroup(const std::string& path, unsigned gid, bool follow_link, int* error = nullptr);

// mkdir(2) of `path` with `mode` (before the umask): true when made, false when something was
// already there (EEXIST, which may be no directory: StatLink it). "cannot create <path>:
// <why>".
Result<bool> MakeDirectory(const std::string& path, unsigned mode, int* error = nullptr);

// umask(2): the process's file mode creation mask becomes `mask`; the previous one.
unsigned SetUmask(unsigned mask);

}  // namespace trainyard::os
