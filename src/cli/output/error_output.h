// How the verbs report failure on stderr, as gcloud does: "ERROR: (<command>) <message>".
// `command` is the dotted command path, e.g. "trainyard.jobs.describe".
#pragma once

#include <ostream>
#include <string_view>

#include "base/status.h"

namespace trainyard::cli {

// "ERROR: (<command>) <message>\n".
void PrintError(std::ostream& err, std::string_view command, std::string_view message);

// A failed API call: "CODE: message", then "  field: description" for each field violation when
// there are several (`Status::ToString`; a single one is already in the message).
void PrintApiError(std::ostream& err, std::string_view command, const Status& status);

// A failed create: as `PrintApiError`, except that a conflict (ALREADY_EXISTS or ABORTED, HTTP
// 409) reads "Resource in projects [<project>] is the subject of a conflict: <message>", as
// gcloud words a 409 on `projects/<project>/jobs`.
void PrintCreateError(std::ostream& err, std::string_view command, std::string_view project,
                      const Status& status);

}  // namespace trainyard::cli
