#include "logs/record_file.h"

#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "logs/log_record.h"

namespace trainyard::logs {
namespace {

// Reads for a seek probe or the tail of a file: a few lines' worth.
constexpr std::size_t kProbeBytes = 4096;
// A seek reads lines one by one once its range is this small.
constexpr std::uint64_t kLinearSpan = std::uint64_t{64} << 10;
// No record is longer than kRecordPrefixBytes + kMaxTextBytes + 1; a longer line is corrupt, and
// a scan drops it rather than buffer it whole.
constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;
// A scan's first read; each next one doubles, up to its chunk size, so a short page reads little.
constexpr std::size_t kFirstReadBytes = std::size_t{64} << 10;

// An error of os/ as a reader answers it.
Status ReadError(const Status& status) {
  return Status::Internal(status.message());
}

}  // namespace

Result<RecordFile> RecordFile::Open(const std::string& path) {
  // Not through a link, and only a regular file: what the server wrote, not what a job put in
  // its place (os/file_handle.h).
  Result<os::File> opened = os::File::Open(path, os::OpenMode::kRead);
  if (!opened.ok()) {
    if (opened.status().code() == Code::kNotFound) {
      return Status::NotFound(fmt::format("{} does not exist", path));
    }
    return ReadError(opened.status());
  }
  Result<os::FileStatus> info = opened->Info();
  if (!info.ok()) {
    return ReadError(info.status());
  }
  RecordFile file(*std::move(opened), 0);
  // The end of the whole records: one past the last '\n', looked for from the end back.
  std::string block(kProbeBytes * 16, '\0');
  auto pos = static_cast<std::uint64_t>(info->size);
  while (pos > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), pos));
    pos -= want;
    Result<std::size_t> got = file.ReadAt(pos, block.data(), want);
    if (!got.ok()) {
      return got.status();
    }
    const void* newline = ::memrchr(block.data(), '\n', *got);
    if (newline != nullptr) {
      file.end_ =
          pos + static_cast<std::uint64_t>(static_cast<const char*>(newline) - block.data()) + 1;
      break;
    }
  }
  return file;
}

Result<std::size_t> RecordFile::ReadAt(std::uint64_t offset, char* out, std::size_t size) const {
  Result<std::size_t> got = file_.ReadAt(offset, out, size);
  if (!got.ok()) {
    return ReadError(got.status());
  }
  return got;
}

Result<std::uint64_t> RecordFile::NextLineStart(std::uint64_t pos) const {
  if (pos == 0 || pos >= end_) {
    return pos == 0 ? 0 : end_;
  }
  char block[kProbeBytes];
  std::uint64_t at = pos - 1;  // a line starts at `pos` when the byte before it is '\n'
  while (at < end_) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof block, end_ - at));
    Result<std::size_t> got = ReadAt(at, block, want);
    if (!got.ok()) {
      return got.status();
    }
    if (*got == 0) {
      return end_;
    }
    if (const void* newline = std::memchr(block, '\n', *got)) {
      return at + static_cast<std::uint64_t>(static_cast<const char*>(newline) - block) + 1;
    }
    at += *got;
  }
  return end_;
}

Result<std::string_view> RecordFile::LineAt(std::uint64_t pos, std::string& scratch) const {
  scratch.clear();
  std::size_t searched = 0;
  while (pos + scratch.size() < end_ && scratch.size() <= kMaxLineBytes) {
    const std::size_t old = scratch.size();
    const auto want =
        static_cast<std::size_t>(std::min<std::uint64_t>(kProbeBytes, end_ - pos - old));
    scratch.resize(old + want);
    Result<std::size_t> got = ReadAt(pos + old, scratch.data() + old, want);
    if (!got.ok()) {
      return got.status();
    }
    scratch.resize(old + *got);
    if (*got == 0) {
      break;
    }
    if (const std::size_t newline = std::string_view(scratch).find('\n', searched);
        newline != std::string_view::npos) {
      return std::string_view(scratch).substr(0, newline);
    }
    searched = scratch.size();
  }
  return std::string_view(scratch);  // an unterminated or over-long line: not a record
}

Result<std::uint64_t> RecordFile::Seek(std::string_view timestamp, bool strictly_after) const {
  const auto satisfies = [&](std::string_view record_timestamp) {
    return strictly_after ? record_timestamp > timestamp : record_timestamp >= timestamp;
  };
  // Records starting before `lo` do not satisfy; records starting at or after `hi` do.
  std::uint64_t lo = 0;
  std::uint64_t hi = end_;
  std::string scratch;
  while (hi - lo > kLinearSpan) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    Result<std::uint64_t> at = NextLineStart(mid);
    if (!at.ok()) {
      return at.status();
    }
    std::optional<std::string_view> probe;  // the first record's timestamp in [mid, hi)
    while (*at < hi) {
      Result<std::string_view> line = LineAt(*at, scratch);
      if (!line.ok()) {
        return line.status();
      }
      if (std::optional<LogRecord> record = ParseRecord(*line)) {
        probe = record->timestamp;
        break;
      }
      *at += line->size() + 1;
    }
    if (!probe.has_value() || satisfies(*probe)) {
      hi = mid;
    } else {
      lo = *at + 1;
    }
  }
  Result<std::uint64_t> start = NextLineStart(lo);
  if (!start.ok()) {
    return start.status();
  }
  LineScan scan(*this, *start, end_, /*backward=*/false, kLinearSpan);
  LineScan::Line line;
  while (true) {
    Result<bool> more = scan.Next(line);
    if (!more.ok()) {
      return more.status();
    }
    if (!*more) {
      return end_;
    }
    std::optional<LogRecord> record = ParseRecord(line.bytes);
    if (record.has_value() && (line.offset >= hi || satisfies(record->timestamp))) {
      return line.offset;
    }
  }
}

LineScan::LineScan(const RecordFile& file, std::uint64_t begin, std::uint64_t end, bool backward,
                   std::size_t chunk_bytes)
    : file_(&file),
      begin_(begin),
      end_(end),
      backward_(backward),
      chunk_bytes_(std::min(chunk_bytes, kMaxLineBytes)),
      read_bytes_(std::min(chunk_bytes_, kFirstReadBytes)),
      base_(backward ? end : begin) {}

Result<bool> LineScan::Next(Line& line) {
  return backward_ ? NextBackward(line) : NextForward(line);
}

Result<bool> LineScan::NextForward(Line& line) {
  while (true) {
    if (head_ < tail_) {
      char* data = buffer_.data();
      if (const void* found = std::memchr(data + head_, '\n', tail_ - head_)) {
        const auto newline = static_cast<std::size_t>(static_cast<const char*>(found) - data);
        const std::size_t start = head_;
        head_ = newline + 1;
        if (skipping_) {
          skipping_ = false;
          continue;
        }
        line.offset = base_ + start;
        line.bytes = std::string_view(data + start, newline - start);
        return true;
      }
    }
    const std::uint64_t next = base_ + tail_;
    if (next >= end_) {
      return false;
    }
    if (head_ > 0) {  // keep the partial line, at the front
      std::memmove(buffer_.data(), buffer_.data() + head_, tail_ - head_);
      base_ += head_;
      tail_ -= head_;
      head_ = 0;
    }
    if (skipping_ || tail_ >= kMaxLineBytes) {  // no record is this long: drop it to its '\n'
      skipping_ = true;
      base_ += tail_;
      tail_ = 0;
    }
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(read_bytes_, end_ - next));
    if (buffer_.size() < tail_ + want) {
      buffer_.resize(tail_ + want);
    }
    Result<std::size_t> got = file_->ReadAt(next, buffer_.data() + tail_, want);
    if (!got.ok()) {
      return got.status();
    }
    if (*got == 0) {  // the file shrank: nothing more to read
      return false;
    }
    tail_ += *got;
    read_bytes_ = std::min(read_bytes_ * 2, chunk_bytes_);
  }
}

Result<bool> LineScan::NextBackward(Line& line) {
  while (true) {
    if (tail_ > 0) {
      const char* data = buffer_.data();
      // Not skipping, buffer_[tail_ - 1] is the '\n' ending the next line to return.
      const std::size_t searched = skipping_ ? tail_ : tail_ - 1;
      const void* found = ::memrchr(data, '\n', searched);
      if (skipping_) {
        if (found != nullptr) {
          tail_ = static_cast<std::size_t>(static_cast<const char*>(found) - data) + 1;
          skipping_ = false;
          continue;
        }
        tail_ = 0;
      } else if (found != nullptr || base_ <= begin_) {
        const std::size_t start =
            found == nullptr ? 0
                             : static_cast<std::size_t>(static_cast<const char*>(found) - data) + 1;
        line.offset = base_ + start;
        line.bytes = std::string_view(data + start, tail_ - 1 - start);
        tail_ = start;
        return true;
      } else if (tail_ >= kMaxLineBytes) {  // no record is this long: drop it to its start
        skipping_ = true;
        tail_ = 0;
      }
    }
    if (base_ <= begin_) {
      return false;
    }
    // Read the chunk before `base_`, ahead of the partial line kept in buffer_[0, tail_).
    const auto want =
        static_cast<std::size_t>(std::min<std::uint64_t>(read_bytes_, base_ - begin_));
    spare_.resize(want + tail_);
    Result<std::size_t> got = file_->ReadAt(base_ - want, spare_.data(), want);
    if (!got.ok()) {
      return got.status();
    }
    if (*got != want) {  // the file shrank under us
      return false;
    }
    std::memcpy(spare_.data() + want, buffer_.data(), tail_);
    buffer_.swap(spare_);
    base_ -= want;
    tail_ += want;
    read_bytes_ = std::min(read_bytes_ * 2, chunk_bytes_);
  }
}

}  // namespace trainyard::logs
