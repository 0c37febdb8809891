// Reading one records file (logs/log_record.h), internal to logs/: seeking by timestamp with a
// binary search over byte offsets, and scanning a byte range line by line, forwards or
// backwards, with large pread(2) chunks. What a reader sees of a file is fixed when it opens it:
// the bytes up to the last '\n' then present (later bytes, and a record still being written, are
// not its concern). A line that does not parse as a record is returned by scans (the caller
// skips it) and passed over by seeks. Not thread-safe; one query owns each object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "os/unique_fd.h"

namespace trainyard::logs {

class RecordFile {
 public:
  // NOT_FOUND when `path` does not exist (a job's files may vanish under a reader); INTERNAL with
  // the path and errno text for any other failure.
  static Result<RecordFile> Open(const std::string& path);

  const std::string& path() const { return path_; }
  // One past the last '\n' when the file was opened: the end of its whole records.
  std::uint64_t end() const { return end_; }

  // The first line start at or after `pos` (a line starts at 0 and after each '\n'); end() when
  // none.
  Result<std::uint64_t> NextLineStart(std::uint64_t pos) const;

  // The start of the first record whose timestamp (27 bytes, compared as bytes) is >= `timestamp`
  // (or > it when `strictly_after`); end() when none. Relies on timestamps never decreasing
  // within a file; corrupt lines are passed over.
  Result<std::uint64_t> Seek(std::string_view timestamp, bool strictly_after) const;

  // The line starting at `pos` (< end()), without its '\n', read into `scratch`.
  Result<std::string_view> LineAt(std::uint64_t pos, std::string& scratch) const;

  // Reads up to `size` bytes at `offset` into `out`; returns how many (0 at the end of the file).
  Result<std::size_t> ReadAt(std::uint64_t offset, char* out, std::size_t size) const;

 private:
  RecordFile(std::string path, os::UniqueFd fd, std::uint64_t end)
      : path_(std::move(path)), fd_(std::move(fd)), end_(end) {}

  std::string path_;
  os::UniqueFd fd_;
  std::uint64_t end_ = 0;
};

// The lines of [begin, end) of a file, front to back or back to front. `begin` and `end` must be
// line starts (or end()). A line longer than any record can be (a corrupt file) is skipped.
class LineScan {
 public:
  struct Line {
    std::uint64_t offset = 0;  // where the line starts in the file
    std::string_view bytes;    // without '\n'; valid until the next call to Next
  };

  // `chunk_bytes`: the most one read asks for (reads start small and double up to it).
  LineScan(const RecordFile& file, std::uint64_t begin, std::uint64_t end, bool backward,
           std::size_t chunk_bytes);

  // The next line into `line`; false at the end of the range.
  Result<bool> Next(Line& line);

 private:
  Result<bool> NextForward(Line& line);
  Result<bool> NextBackward(Line& line);

  const RecordFile* file_;
  std::uint64_t begin_;
  std::uint64_t end_;
  bool backward_;
  std::size_t chunk_bytes_;  // the largest read
  std::size_t read_bytes_;   // the next read's size
  // Forward: buffer_[head_, tail_) holds the file's bytes from base_ + head_; the file is read
  // next at base_ + tail_. Backward: buffer_[0, tail_) holds the file's bytes from base_; lines
  // are cut off its end, and earlier bytes are read before base_.
  std::string buffer_;
  std::string spare_;  // backward: the next buffer, swapped in
  std::uint64_t base_;
  std::size_t head_ = 0;
  std::size_t tail_ = 0;
  bool skipping_ = false;  // inside an over-long line, dropping it
};

}  // namespace trainyard::logs
