// The exit file: how a replica ended, written by its supervisor (run/local/supervisor.h) or by
// the cluster task that ran it (agent/node_agent.h) when it ends, read by the server
// (`ReadExitStatus`), which may not have been running then:
//
//   exited <code>\n   or   signaled <signal>\n
//   ended <RFC 3339 time in UTC>\n
//
// The second line (since issue #31; files without it still read) is when the replica ended, by
// the writer's clock: a job's endTime and ML units come from it rather than from when the server
// noticed the end, which after a server restart may be long after. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "run/launcher.h"

namespace trainyard::run {

// The longest text ParseExitFile accepts ("signaled 15\nended 2026-…Z\n" is 50 bytes).
inline constexpr std::size_t kMaxExitFileBytes = 128;

// The file's text for `status` ending at `ended` (`status.ended` is not used).
std::string ExitFileText(const ExitStatus& status, WallTime ended);

// The status a file's text records, with `ended` set when it has the second line; nullopt for
// any other text (truncated, longer than kMaxExitFileBytes, or not one of these forms).
std::optional<ExitStatus> ParseExitFile(std::string_view text);

}  // namespace trainyard::run
