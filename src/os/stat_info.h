// Internal to os/: a stat(2) result as a `FileStatus` (os/file_status.h).
#pragma once

#include <cstdint>

#include <sys/stat.h>

#include "os/file_status.h"

namespace trainyard::os::internal {

inline FileStatus ToFileStatus(const struct stat& st) {
  FileType type = FileType::kOther;
  if (S_ISREG(st.st_mode)) {
    type = FileType::kRegular;
  } else if (S_ISDIR(st.st_mode)) {
    type = FileType::kDirectory;
  } else if (S_ISLNK(st.st_mode)) {
    type = FileType::kSymlink;
  }
  return FileStatus{
      .type = type,
      .mode = static_cast<unsigned>(st.st_mode) & kModeBits,
      .uid = static_cast<unsigned>(st.st_uid),
      .gid = static_cast<unsigned>(st.st_gid),
      .device = static_cast<std::uint64_t>(st.st_dev),
      .inode = static_cast<std::uint64_t>(st.st_ino),
      .size = static_cast<std::int64_t>(st.st_size),
      .mtime_ns = std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
}

}  // namespace trainyard::os::internal
