// The `jobs stream-logs` verb: the job's log entries, as gcloud 528 prints them (reference §10.3),
// on stdout until the job has ended (job_log_stream.h). Unlike gcloud, which polls every 60 s
// unless told otherwise and lags 5 s behind the clock, trainyard polls every second and lags 1 s.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "cli/commands.h"
#include "cli/error_output.h"
#include "cli/flag_values.h"
#include "cli/job_log_stream.h"
#include "cli/rest_client.h"

namespace trainyard::cli {
namespace {

constexpr std::string_view kStreamLogsCommand = "trainyard.jobs.stream-logs";
constexpr std::int64_t kMaxPollingIntervalSeconds = 86'400;

}  // namespace

int RunStreamLogs(const ApiTarget& target, const std::string& job_id, const StreamLogsFlags& flags,
                  bool stderr_is_tty, std::ostream& out, std::ostream& err) {
  std::int64_t interval_seconds = 1;
  if (flags.polling_interval) {
    auto parsed = ParsePositiveInt(*flags.polling_interval);
    if (!parsed.ok()) {
      PrintError(err, kStreamLogsCommand,
                 "argument --polling-interval: " + parsed.status().message());
      return 1;
    }
    interval_seconds = std::min(*parsed, kMaxPollingIntervalSeconds);
  }
  Result<RestOptions> options = RestOptionsFor(target);
  if (!options.ok()) {
    PrintError(err, kStreamLogsCommand, options.status().message());
    return 1;
  }
  auto rest = RestClient::ForUrl(target.server, *options);
  if (!rest.ok()) {
    PrintError(err, kStreamLogsCommand, rest.status().message());
    return 1;
  }
  auto followed = StreamJobLogs(*rest,
                                {.project = target.project,
                                 .job_id = job_id,
                                 .task_name = flags.task_name.value_or(""),
                                 .polling_interval = std::chrono::seconds(interval_seconds),
                                 .allow_multiline = flags.allow_multiline_logs,
                                 .status_line = stderr_is_tty},
                                out, err);
  if (!followed.ok()) {
    PrintApiError(err, kStreamLogsCommand, followed.status());
    return 1;
  }
  if (followed->end == FollowEnd::kInterrupted) {
    err << "\n\nCommand killed by keyboard interrupt\n\n";  // gcloud's words
    return 130;                                             // as a shell shows a SIGINT death
  }
  return 0;
}

}  // namespace trainyard::cli
