// The on-disk form of captured output: one record per line of a replica's stdout or stderr (or of
// the service's own messages about a job), appended to a per-source file under the job's logs/
// directory (`<task>.log`, `service.log`):
//
//   2026-11-21T09:35:01.760285Z O Epoch 1/10 loss=0.31\n
//   └── timestamp, 27 bytes ──┘ │ └── text: the line's bytes, without its '\n'
//                               stream: 'O' stdout, 'E' stderr
//
// The timestamp is when the capturing process read the line, in UTC with exactly six fractional
// digits (base/time_format.h FormatTimestampMicros), so byte order is time order. Within one file
// timestamps never decrease (the writer clamps a clock that steps back), which lets a reader
// binary-search a file by time and merge files by (timestamp, insertId). A line longer than
// kMaxTextBytes is split into several records. Only whole records count: bytes after the last
// '\n' are a record still being written.
//
// A record's insertId is its byte offset in its file, zero-padded to 16 digits, then '-' and the
// source's name ("0000000000004211-worker-replica-1"): unique within a job, and increasing within a
// file, as gcloud's duplicate check needs (docs/reference/ai-platform-training.md §10.1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"

namespace trainyard::logs {

enum class Stream : char { kStdout = 'O', kStderr = 'E' };

inline constexpr std::size_t kTimestampBytes = 27;  // "YYYY-MM-DDTHH:MM:SS.ffffffZ"
inline constexpr std::size_t kRecordPrefixBytes =
    kTimestampBytes + 3;  // timestamp, ' ', stream, ' '
inline constexpr std::size_t kMaxTextBytes = std::size_t{64} * 1024;

struct LogRecord {
  std::string_view timestamp;  // the 27 bytes, as written
  Stream stream = Stream::kStdout;
  std::string_view text;  // raw bytes; may be invalid UTF-8
};

// Appends one record (text at most kMaxTextBytes, without '\n') to `out`.
void AppendRecord(std::string& out, std::string_view timestamp, Stream stream,
                  std::string_view text);

// Parses one record without its '\n'; nullopt when the line is not a record (a corrupt file).
std::optional<LogRecord> ParseRecord(std::string_view line);

// The insertId of the record at `offset` in the file of source `source`.
std::string InsertId(std::uint64_t offset, std::string_view source);

}  // namespace trainyard::logs
