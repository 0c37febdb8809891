// Following a job's logs from the command line, shared by `jobs stream-logs` (rows on stdout),
// `submit training --stream-logs` (rows on stderr) and `ai custom-jobs|hp-tuning-jobs
// stream-logs`: `FollowJobLogs` (log_follower.h) against the server, each entry printed as gcloud
// prints it (log_entries.h), a live status line (status_line.h) on the terminal when stderr is
// one, and Ctrl-C ending the follow between two requests (interrupt.h). Uses the real clock and
// really waits. Not thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "cli/client/rest_client.h"
#include "cli/client/vertex_client.h"
#include "cli/follow/log_follower.h"

namespace trainyard::cli {

struct LogStreamOptions {
  std::vector<std::string> filters;  // the job's clauses (log_query.h)
  bool trial_column = true;          // ml v1's rows have one, Vertex AI's none
  std::chrono::milliseconds polling_interval{1000};
  bool allow_multiline = false;
  bool status_line = false;  // draw one on `terminal` (only when it is a terminal)
};

// The server as following an ml v1 job needs it: the job from `MlClient`, the entries and the
// replicas from `LoggingClient`. `rest` must outlive it.
std::unique_ptr<FollowSource> MlJobFollowSource(const RestClient& rest, std::string project,
                                                std::string job_id);

// The same for a Vertex AI job: the job from `VertexClient`, read as far as following needs it
// (its state as the nearest ml v1 state, its create, start and end times), the entries of its
// project, and its replicas under its id.
std::unique_ptr<FollowSource> VertexJobFollowSource(const RestClient& rest, VertexKind kind,
                                                    VertexJobName name);

// Follows the job to its end (or Ctrl-C), printing its rows to `rows`; the status line, if any,
// is cleared before each row and at the end. Errors are the first failed call's.
Result<FollowResult> StreamJobLogs(FollowSource& source, const LogStreamOptions& options,
                                   std::ostream& rows, std::ostream& terminal);

}  // namespace trainyard::cli
