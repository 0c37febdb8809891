// An open regular file (`os::File`): positional reads, whole writes that leave nothing torn,
// flushing, its description. Opened by path where the directories above it are trusted, or
// beneath a directory a job writes with `Dir::OpenFile` (os/dir.h). Never through a link as the
// last component, never blocking on a FIFO, and only ever a regular file: a link, a directory, a
// FIFO or a device in its place is refused. Errors as `IoError` (os/io_error.h). One owner at a
// time; reads are safe from several threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "os/file_status.h"
#include "os/unique_fd.h"

namespace trainyard::os {

enum class OpenMode : std::uint8_t {
  kRead,        // an existing file, for reading
  kCreateNew,   // a new file, for writing: ALREADY_EXISTS when anything (a link too) is there
  kAppend,      // for appending, created when missing
  kReadAppend,  // for reading and appending, created when missing
};

class File {
 public:
  // `path` opened in `mode`; `permissions` are a created file's (before the umask).
  // FAILED_PRECONDITION when it is a link or anything but a regular file.
  static Result<File> Open(const std::string& path, OpenMode mode,
                           std::uint32_t permissions = 0644);

  File(File&&) noexcept = default;
  File& operator=(File&&) noexcept = default;

  // The path errors name.
  const std::string& path() const { return path_; }
  // What the file is now (its size, its mtime, …).
  Result<FileStatus> Info() const;
  // Reads up to `size` bytes at `offset` into `out`: fewer only where the file ends.
  Result<std::size_t> ReadAt(std::uint64_t offset, char* out, std::size_t size) const;
  // Writes all of `bytes` at the file's offset (its end, when appending): short and interrupted
  // writes are continued, and a write failing part way (a full disk) is cut off the file again,
  // so nothing torn stays for the next write to continue.
  Status Write(std::string_view bytes);
  // Flushes the file's data to disk (fsync).
  Status Sync();
  // The descriptor, for a caller that hands it on (a download streamed from it).
  UniqueFd TakeFd() && { return std::move(fd_); }

 private:
  friend class Dir;
  File(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  // `fd`, opened for `path`, when it is a regular file.
  static Result<File> Adopt(std::string path, UniqueFd fd);
  // open(2)'s flags for `mode`, O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC added.
  static int Flags(OpenMode mode);

  std::string path_;
  UniqueFd fd_;
};

// Appends the bytes of `from` from `offset` to its end onto `to`.
Status CopyTail(const File& from, std::uint64_t offset, File& to);

}  // namespace trainyard::os
