// The `stream-logs` verbs (`jobs`, `ai custom-jobs`, `ai hp-tuning-jobs`): the job's log entries,
// as gcloud 528 prints them (docs/reference/ai-platform-training.md §10.3), on stdout until the job
// has ended (job_log_stream.h). Unlike gcloud, which polls every 60 s unless told otherwise and
// lags 5 s behind the clock, trainyard polls every second and lags 1 s.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "cli/client/rest_client.h"
#include "cli/commands/commands.h"
#include "cli/commands/flag_values.h"
#include "cli/follow/job_log_stream.h"
#include "cli/follow/log_query.h"
#include "cli/output/error_output.h"

namespace trainyard::cli {
namespace {

constexpr std::string_view kStreamLogsCommand = "trainyard.jobs.stream-logs";
constexpr std::int64_t kMaxPollingIntervalSeconds = 86'400;

}  // namespace

int RunLogStream(std::string_view command, const ApiTarget& target, const LogFollowing& following,
                 const StreamLogsFlags& flags, bool stderr_is_tty, std::ostream& out,
                 std::ostream& err) {
  std::int64_t interval_seconds = 1;
  if (flags.polling_interval) {
    auto parsed = ParsePositiveInt(*flags.polling_interval);
    if (!parsed.ok()) {
      PrintError(err, command, "argument --polling-interval: " + parsed.status().message());
      return 1;
    }
    interval_seconds = std::min(*parsed, kMaxPollingIntervalSeconds);
  }
  const std::optional<RestClient> rest = Connect(target, command, err);
  if (!rest) {
    return 1;
  }
  const std::unique_ptr<FollowSource> source = following.source(*rest);
  auto followed = StreamJobLogs(*source,
                                {.filters = following.filters,
                                 .trial_column = following.trial_column,
                                 .polling_interval = std::chrono::seconds(interval_seconds),
                                 .allow_multiline = flags.allow_multiline_logs,
                                 .status_line = stderr_is_tty},
                                out, err);
  if (!followed.ok()) {
    PrintApiError(err, command, followed.status());
    return 1;
  }
  if (followed->end == FollowEnd::kInterrupted) {
    err << "\n\nCommand killed by keyboard interrupt\n\n";  // gcloud's words
    return 130;                                             // as a shell shows a SIGINT death
  }
  return 0;
}

int RunStreamLogs(const ApiTarget& target, const std::string& job_id, const StreamLogsFlags& flags,
                  bool stderr_is_tty, std::ostream& out, std::ostream& err) {
  const LogFollowing following{
      .source =
          [&](const RestClient& rest) { return MlJobFollowSource(rest, target.project, job_id); },
      .filters = JobLogFilters(job_id, flags.task_name.value_or("")),
  };
  return RunLogStream(kStreamLogsCommand, target, following, flags, stderr_is_tty, out, err);
}

}  // namespace trainyard::cli
