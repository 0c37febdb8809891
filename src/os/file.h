// Files and descriptors: reading a whole (small) file (run records, launch files, operator
// configuration), reading and writing a descriptor to its end or at an offset, opening, creating
// and removing files, and whether this process may run or write a path. (A full disk's error is
// base/disk_full.h's; a file's type, owner and mode are os/file_status.h's.)
//
// Functions on a path return a Result or Status as `IoError` (os/io_error.h): "cannot <what>
// <path>: <the system's words>", its code from the errno; those that take an `int* error` also
// give the errno (0 on success), for callers that word the error their own way. A descriptor's
// reads and writes return 0 or the errno. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "os/unique_fd.h"

namespace trainyard::os {

// The bytes of the file at `path`; nullopt when it cannot be opened.
std::optional<std::string> ReadFileText(const std::string& path);

// Appends what `fd` holds from its offset to `text`, until its end or until `max_bytes` have
// been read, whichever comes first (reads interrupted by a signal are retried). 0, or the errno
// of the read that failed (what was read before it stays in `text`).
int ReadAtMost(int fd, std::size_t max_bytes, std::string& text);

// Writes all of `bytes` to `fd`, short writes and interrupted ones continued. 0, or the errno of
// the write that failed.
int WriteFully(int fd, std::string_view bytes);

// One read of up to `buffer.size()` bytes of `fd` at `offset` (pread; retried when interrupted),
// the file's offset unchanged: `got` is the count read, 0 at the end of the file. 0, or the errno
// of the read that failed.
int ReadAt(int fd, std::uint64_t offset, std::span<char> buffer, std::size_t& got);

// `path` opened for reading, close-on-exec. "cannot open <path>: <why>".
Result<UniqueFd> OpenForReading(const std::string& path, int* error = nullptr);

// A new file at `path`, opened for writing with `mode` (before the umask), close-on-exec: never a
// file or a symbolic link that was there (O_EXCL | O_NOFOLLOW). "cannot create <path>: <why>"
// (ALREADY_EXISTS when something is there).
Result<UniqueFd> CreateNewFile(const std::string& path, unsigned mode, int* error = nullptr);

// Removes the file (or link) `path`; a directory is not removed. "cannot remove <path>:
// <why>" (NOT_FOUND when it is not there).
Status RemoveFile(const std::string& path, int* error = nullptr);

// A second descriptor for what `fd` refers to, close-on-exec. "cannot duplicate descriptor
// <fd>: <why>".
Result<UniqueFd> Duplicate(int fd, int* error = nullptr);

// Whether this process may execute the file at `path` (its effective ids: access(2), X_OK).
bool IsExecutable(const std::string& path);

// Whether this process may create and remove entries in the directory `dir` (W_OK | X_OK).
bool CanWriteIn(const std::string& dir);

}  // namespace trainyard::os
