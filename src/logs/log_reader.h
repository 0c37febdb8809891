// Reading entries back: the query behind logging v2 entries:list. Entries come from record files
// (logs/log_record.h), each sorted by (timestamp, insertId); a query merges the files it needs in
// that order (or its reverse), seeking each file to its time bounds by binary search, so a poll
// for "what is new" costs what it returns, not the size of the log.
//
// Files only grow, so a reader needs no lock: it sees each file up to its last complete record.
// Thread-safe: plain functions of their arguments and the file system.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "logs/log_entry.h"
#include "logs/log_record.h"

namespace trainyard::logs {

// The severity a line gets (docs/reference/ai-platform-training.md §10.2): a Python logging or
// absl/glog prefix names it ("WARNING:root:…", "ERROR:tensorflow:…", "W1121 09:35:01.5 …",
// "… - INFO - …"); otherwise stdout is INFO and stderr ERROR. Service messages: stdout INFO,
// stderr ERROR, no prefix detection. The prefix table is data in severity.cc.
Severity DetectSeverity(Stream stream, std::string_view text, bool service);

// The sources of one job: every `*.log` in `logs_dir` (`service.log` is the service's own, task
// "service"; `<task>.log` a replica's), and every `trial-<n>/<task>.log` below it (trial n).
// Ordered by task name, then trial. An absent directory has none.
std::vector<LogSource> ListSources(const std::string& logs_dir, std::string_view project,
                                   std::string_view job_id);

enum class Order { kAscending, kDescending };

// A point in the (timestamp, insertId) order: where the previous page ended.
struct Cursor {
  std::string timestamp;
  std::string insert_id;
};

struct ReadRequest {
  const std::vector<LogSource>* sources = nullptr;  // entries point into these
  std::function<bool(const LogEntry&)> matches;     // empty: every entry
  std::optional<WallTime> min_time;                 // seek hints: entries outside are skipped
  std::optional<WallTime> max_time;
  std::optional<Cursor> after;  // only entries strictly after it in `order`
  Order order = Order::kAscending;
  std::size_t limit = 1000;
};

struct ReadResult {
  std::vector<LogEntry> entries;  // at most `limit`, in `order`
  bool more = false;              // a further entry matched; continue after the last one
};

// INTERNAL when a file cannot be read (a file that vanished is skipped).
Result<ReadResult> ReadEntries(const ReadRequest& request);

// The bytes of a records file from `offset` (a line start: 0, or where the last read ended) to
// one past its last '\n': whole records only, a record still being written left for the next
// read. What `kubectl logs [-f]` reads of a replica's file, polled as it grows. Empty when the
// file is absent or has nothing more; a link in its place is never followed (os::File).
std::string ReadWholeRecordsFrom(const std::string& path, std::uint64_t offset);

// The end of a records file's stderr, for a failure message: the text of the last stderr records
// within the last `max_bytes` of the file, one per line. Empty when there are none.
std::string ReadStderrTail(const std::string& path, std::size_t max_bytes = std::size_t{256} << 10);

}  // namespace trainyard::logs
