// Log entries as `stream-logs` reads and prints them, as gcloud 528 does
// (command_lib/ml_engine/log_utils.py; docs/reference/ai-platform-training.md §10.2, §10.3): the
// response of the logging v2 `entries.list` decoded into the few fields gcloud keeps, and each
// entry formatted as the rows of gcloud's `value(severity, timestamp.date("%Y-%m-%d %H:%M:%S %z",
// tz=LOCAL), task_name, trial_id, message)`: tab-separated, one row per line of the message
// (Python's `splitlines`) unless multi-line messages are allowed. Pure apart from `LocalLogDate`,
// which reads the process's time zone; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace trainyard::cli {

// What gcloud's `_EntryToDict` keeps of a LogEntry.
struct ListedLogEntry {
  std::string timestamp;  // as the server sent it: the log position copies it byte for byte
  std::string insert_id;
  std::string severity;   // a LogSeverity name; "DEFAULT" when missing or unknown
  std::string task_name;  // resource.labels, then labels.task_name, then labels
                          // ["ml.googleapis.com/task_name"]; "unknown_task" when none has it
  std::string trial_id;   // labels.trial_id, then labels["ml.googleapis.com/trial_id"]; or ""
  std::string message;    // jsonPayload.message, else textPayload, else ""

  friend bool operator==(const ListedLogEntry&, const ListedLogEntry&) = default;
};

struct LogEntriesPage {
  std::vector<ListedLogEntry> entries;
  std::string next_page_token;  // empty on the last page
};

// A ListLogEntriesResponse (`{"entries":[…],"nextPageToken":"…"}`, or `{}`). INVALID_ARGUMENT
// when it is not one, or when an entry lacks its timestamp or insertId (strings), without which
// no position can follow it.
Result<LogEntriesPage> DecodeLogEntriesPage(std::string_view body);

// Python's `str.splitlines()` on UTF-8 text: splits at \n, \r\n, \r, \v, \f, \x1c-\x1e, U+0085,
// U+2028 and U+2029; a final line break adds no empty line. Empty text gives one empty line, as
// gcloud prints it.
std::vector<std::string> SplitLogMessage(std::string_view message);

// Formats a time for a log row.
using LogDateFormatter = std::function<std::string(WallTime)>;

// "%Y-%m-%d %H:%M:%S %z" in the time zone of this process ($TZ, /etc/localtime).
std::string LocalLogDate(WallTime time);

// The rows of `entry`, each ending with "\n"; one row for the whole message when
// `allow_multiline`. A timestamp that does not parse shows as "" (gcloud's `date()` default).
// Without `trial_column` (Vertex AI's LOG_FORMAT, command_lib/ai/log_util.py) a row has no
// trial_id column.
std::string FormatLogEntry(const ListedLogEntry& entry, bool allow_multiline,
                           const LogDateFormatter& date, bool trial_column = true);

}  // namespace trainyard::cli
