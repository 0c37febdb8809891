// The one way a write that found the disk full is reported (the bucket store, the job store,
// uploads, package copies): errno values only, no system call.
#pragma once

#include <string_view>

#include "base/status.h"

namespace trainyard {

// True for the errno values of a full disk or an exhausted quota (ENOSPC, EDQUOT).
bool IsDiskFull(int err);

// RESOURCE_EXHAUSTED in a user's words: "The server's disk is full (<cause>): cannot <what>. Free
// space where the server keeps its data, then retry." `cause` is the system's own wording.
Status DiskFullError(std::string_view what, std::string_view cause = "No space left on device");

}  // namespace trainyard
