// The rules every `FileView` (run/file_view.h) is made by, shared by the executor's views of a
// job's replicas (control/job_view.h) and the package installer's (run/local/package_cache.h).
// Pure: paths are compared as text, nothing is looked at.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "run/file_view.h"

namespace trainyard::run {

// The directories a job's processes get empty ones of their own: /tmp, /var/tmp, /dev/shm, and
// `home` (the job user's HOME) when it is not empty.
std::vector<std::string> JobPrivateDirs(std::string_view home);

// `view` with:
// - every path made lexically normal (no trailing slash, "." or ".."); relative and empty ones
//   dropped (`hidden` too);
// - each list sorted, without duplicates;
// - a writable path at or below another writable one dropped (the one above shows it);
// - a readable path at or below a writable one dropped (shown already, read-write);
// - a private directory below another private one dropped (that one is empty already);
// - a private directory dropped when it is "/" (everything would be gone), or at or below
//   `hidden`, a writable or a readable path (the mount above would hide it). One that holds
//   such paths stays: they are shown again inside it (a test's data directory below /tmp).
FileView NormaliseView(const FileView& view);

}  // namespace trainyard::run
