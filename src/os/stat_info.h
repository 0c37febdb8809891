// Internal to os/: a stat(2) result as a `FileInfo`.
#pragma once

#include <sys/stat.h>

#include "os/file_info.h"

namespace trainyard::os::internal {

inline FileInfo ToFileInfo(const struct stat& st) {
  FileType type = FileType::kOther;
  if (S_ISREG(st.st_mode)) {
    type = FileType::kRegular;
  } else if (S_ISDIR(st.st_mode)) {
    type = FileType::kDirectory;
  } else if (S_ISLNK(st.st_mode)) {
    type = FileType::kSymlink;
  }
  return FileInfo{.type = type,
                  .size = static_cast<std::int64_t>(st.st_size),
                  .mtime_ns = std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec,
                  .inode = static_cast<std::int64_t>(st.st_ino),
                  .mode = static_cast<std::uint32_t>(st.st_mode & 07777)};
}

}  // namespace trainyard::os::internal
