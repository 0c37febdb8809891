// Reading a whole (small) file: run records, launch files, operator configuration; reading and
// writing a descriptor to the end; and the one way a write that found the disk full is reported.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace trainyard {

// The bytes of the file at `path`; nullopt when it cannot be opened.
std::optional<std::string> ReadFileText(const std::string& path);

// Appends what `fd` holds from its offset to `text`, until its end or until `max_bytes` have
// been read, whichever comes first (reads interrupted by a signal are retried). 0, or the errno
// of the read that failed (what was read before it stays in `text`).
int ReadAtMost(int fd, std::size_t max_bytes, std::string& text);

// Writes all of `bytes` to `fd`, short writes and interrupted ones continued. 0, or the errno of
// the write that failed.
int WriteFully(int fd, std::string_view bytes);

// True for the errno values of a full disk or an exhausted quota (ENOSPC, EDQUOT).
bool IsDiskFull(int err);

// RESOURCE_EXHAUSTED in a user's words: "The server's disk is full (<cause>): cannot <what>. Free
// space where the server keeps its data, then retry." `cause` is the system's own wording.
Status DiskFullError(std::string_view what, std::string_view cause = "No space left on device");

}  // namespace trainyard
