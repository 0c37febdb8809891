// How gcloud 528 asks the logging v2 API for one job's logs, byte for byte
// (docs/reference/ai-platform-training.md §10.1; command_lib/ml_engine/log_utils.py `LogFilters`,
// command_lib/ai/log_util.py for Vertex AI, command_lib/logs/stream.py `LogPosition`): the job's
// filter clauses, and the position in the log that bounds each poll from below. The position
// compares the timestamp and insertId strings as bytes, exactly as gcloud does, so it drops what it
// has already seen even when a poll returns it again. Pure; `LogPosition` is a value (not
// thread-safe).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"

namespace trainyard::cli {

// The lower bound of the first poll (stream.py `_UNIX_ZERO_TIMESTAMP`).
inline constexpr std::string_view kLogStartTimestamp = "1970-01-01T01:00:00.000000000Z";

// `LogFilters`: the resource types, the job, and, unless `task_name` is empty, the task.
std::vector<std::string> JobLogFilters(std::string_view job_id, std::string_view task_name);

// Vertex AI's `_LogFilters` (command_lib/ai/log_util.py): `resource.type="ml_job"`, the job's
// numeric id, and, unless `task_name` is empty, `resource.labels.task_name` alone.
std::vector<std::string> VertexJobLogFilters(std::string_view job_id, std::string_view task_name);

// The newest entry read so far.
class LogPosition {
 public:
  // Moves to the entry (`timestamp`, `insert_id`), both as the server sent them, and returns
  // true when it is newer than the position; false for an entry at or before it (seen already,
  // or too late), which the caller drops.
  bool Update(std::string_view timestamp, std::string_view insert_id);

  // `timestamp>="<TS>"`, or `((timestamp="<TS>" AND insertId>"<IID>") OR timestamp>"<TS>")`
  // once two entries sharing the position's timestamp have been read.
  std::string LowerBound() const;

 private:
  std::string timestamp_{kLogStartTimestamp};
  std::string insert_id_;
  bool need_insert_id_ = false;
};

// `timestamp<"<upper>"`, `upper` in UTC as %Y-%m-%dT%H:%M:%S.%6fZ (microseconds, truncated).
std::string LogUpperBound(WallTime upper);

// The filter of one poll: `filters`, the position's lower bound and, when given, the upper
// bound, joined by " AND ".
std::string PollFilter(const std::vector<std::string>& filters, const LogPosition& position,
                       std::optional<WallTime> upper);

}  // namespace trainyard::cli
