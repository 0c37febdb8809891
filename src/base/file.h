// Reading a whole (small) file: run records, launch files, operator configuration; and the one
// way a write that found the disk full is reported.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace trainyard {

// The bytes of the file at `path`; nullopt when it cannot be opened.
std::optional<std::string> ReadFileText(const std::string& path);

// True for the errno values of a full disk or an exhausted quota (ENOSPC, EDQUOT).
bool IsDiskFull(int err);

// RESOURCE_EXHAUSTED in a user's words: "The server's disk is full (<cause>): cannot <what>. Free
// space where the server keeps its data, then retry." `cause` is the system's own wording.
Status DiskFullError(std::string_view what, std::string_view cause = "No space left on device");

}  // namespace trainyard
