// The service's own messages about a job (task name "service"), as Google's service writes them:
// one record per line of `message`, on stderr when it is an error, else stdout. Used by the
// executor and by `trainyard batch-task` inside a cluster allocation (both append to the same
// file; each record is one write, so they do not interleave).
#pragma once

#include <string>
#include <string_view>

#include "base/clock.h"

namespace trainyard::control {

// Appends `message` to the service log at `path` (created with its directory when missing).
// Best effort: a log that cannot be written loses the message.
void AppendServiceMessage(const std::string& path, const Clock& clock, bool error,
                          std::string_view message);

}  // namespace trainyard::control
