// Following a job's logs from the command line, shared by `jobs stream-logs` (rows on stdout)
// and `submit training --stream-logs` (rows on stderr): `FollowJobLogs` (log_follower.h) against
// the server, each entry printed as gcloud prints it (log_entries.h), a live status line
// (status_line.h) on the terminal when stderr is one, and Ctrl-C ending the follow between two
// requests (interrupt.h). Uses the real clock and really waits. Not thread-safe.
#pragma once

#include <chrono>
#include <ostream>
#include <string>

#include "base/status.h"
#include "cli/log_follower.h"
#include "cli/rest_client.h"

namespace trainyard::cli {

struct LogStreamOptions {
  std::string project;
  std::string job_id;
  std::string task_name;  // "" for every task
  std::chrono::milliseconds polling_interval{1000};
  bool allow_multiline = false;
  bool status_line = false;  // draw one on `terminal` (only when it is a terminal)
};

// Follows the job to its end (or Ctrl-C), printing its rows to `rows`; the status line, if any,
// is cleared before each row and at the end. Errors are the first failed call's.
Result<FollowResult> StreamJobLogs(const RestClient& rest, const LogStreamOptions& options,
                                   std::ostream& rows, std::ostream& terminal);

}  // namespace trainyard::cli
