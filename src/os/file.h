// Reading a whole (small) file: run records, launch files, operator configuration; reading and
// writing a descriptor to the end. (A full disk's error is base/disk_full.h's.)
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

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

}  // namespace trainyard::os
