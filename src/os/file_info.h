// What a file is, as the file effects of os/ describe it (lstat(2)'s fields that callers use),
// and describing a path without following a link.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace trainyard::os {

enum class FileType : std::uint8_t { kRegular, kDirectory, kSymlink, kOther };

struct FileInfo {
  FileType type = FileType::kOther;
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;  // the last change of its contents, in ns since the epoch
  std::int64_t inode = 0;
  std::uint32_t mode = 0;  // permission bits with set-user-id, set-group-id and sticky (07777)

  bool regular() const { return type == FileType::kRegular; }
  bool directory() const { return type == FileType::kDirectory; }
};

// The entry at `path`, a link described rather than followed (the directories above it are
// trusted: describe entries below a directory a job writes with `Dir::Stat`). Errors as
// `IoError` (os/io_error.h).
Result<FileInfo> StatPath(const std::string& path);

}  // namespace trainyard::os
