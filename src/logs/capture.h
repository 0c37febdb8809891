// Writing records (logs/log_record.h): the replica supervisor feeds it what it reads from the
// replica's stdout and stderr pipes; the executor writes the service's messages with it.
//
// Each Feed stamps the complete lines it was given with one timestamp (the clock's now, but never
// earlier than the file's last record, even across restarts: Open reads it) and appends them
// with a single write(2) on an O_APPEND descriptor, so a reader never sees a record interleaved
// with another. A partial line is kept until its end arrives, or until it reaches kMaxTextBytes
// (then it is written as a record of its own), or until Close. Not thread-safe; one writer per
// file at a time (a restarted replica's new supervisor appends after the old one has exited).
#pragma once

#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "logs/log_record.h"
#include "os/unique_fd.h"

namespace trainyard::logs {

class RecordWriter {
 public:
  // Opens (creating it, and its directory, when missing) `path` for appending. INTERNAL with the
  // path and errno text when that fails.
  static Result<RecordWriter> Open(const std::string& path, const Clock& clock);

  RecordWriter(RecordWriter&&) noexcept = default;
  RecordWriter& operator=(RecordWriter&&) noexcept = default;

  // Bytes read from `stream`.
  Status Feed(Stream stream, std::string_view bytes);
  // `stream` reached its end: a pending partial line becomes a record.
  Status Close(Stream stream);
  // One whole line (no '\n' inside; a longer text is split at kMaxTextBytes).
  Status WriteLine(Stream stream, std::string_view text);

 private:
  RecordWriter(os::UniqueFd fd, const Clock& clock, std::string last_timestamp);
  std::string Stamp();  // now, formatted, clamped to last_timestamp_

  os::UniqueFd fd_;
  const Clock* clock_;
  std::string last_timestamp_;
  std::string pending_[2];  // partial line per stream: [0] stdout, [1] stderr
  std::string buffer_;      // reused for formatting
};

}  // namespace trainyard::logs
