#include "logs/capture.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "base/time_format.h"

namespace trainyard::logs {
namespace {

// The longest a complete record can be, '\n' included; a torn record after the last '\n' is no
// longer than that either. The tail read for the last timestamp never looks further back than
// two of them.
constexpr std::size_t kMaxRecordBytes = kRecordPrefixBytes + kMaxTextBytes + 1;
constexpr std::size_t kTailChunkBytes = 4096;

int StreamIndex(Stream stream) {
  return stream == Stream::kStdout ? 0 : 1;
}

// Reads the bytes [offset, offset + size) of `file` into `out` (replacing it). False on an
// error or where the file ends first.
bool ReadAt(const os::File& file, std::uint64_t offset, std::size_t size, std::string& out) {
  out.resize(size);
  Result<std::size_t> got = file.ReadAt(offset, out.data(), size);
  return got.ok() && *got == size;
}

struct Tail {
  std::string last_timestamp;  // of the last complete record; empty when there is none
  bool ends_with_newline = true;
};

// Looks at the end of the file only: reads backwards, a chunk at a time, until it has seen the
// start of the last complete record (or the cap).
Tail ReadTail(const os::File& file) {
  Tail tail;
  Result<os::FileStatus> info = file.Info();
  if (!info.ok() || info->size == 0) {
    return tail;
  }
  const auto size = static_cast<std::size_t>(info->size);
  const std::size_t limit = std::min(size, 2 * kMaxRecordBytes);
  std::string window;  // the file's last window.size() bytes
  std::string chunk;
  while (window.size() < limit) {
    const std::size_t take = std::min(kTailChunkBytes, limit - window.size());
    const std::size_t start = size - window.size() - take;
    if (!ReadAt(file, start, take, chunk)) {
      return tail;
    }
    window.insert(0, chunk);
    tail.ends_with_newline = window.back() == '\n';
    const std::size_t end = window.rfind('\n');  // of the last complete record
    if (end == std::string::npos) {
      continue;
    }
    const std::size_t before = end == 0 ? std::string::npos : window.rfind('\n', end - 1);
    if (before == std::string::npos && window.size() < size) {
      continue;  // the record may start before the window
    }
    const std::size_t begin = before == std::string::npos ? 0 : before + 1;
    std::optional<LogRecord> record =
        ParseRecord(std::string_view(window).substr(begin, end - begin));
    if (record.has_value()) {
      tail.last_timestamp = std::string(record->timestamp);
    }
    return tail;
  }
  return tail;
}

// All of `bytes` or none of them: a write that fails part way (a full disk) is cut off again
// (os::File::Write), so the records after it do not continue a torn one.
Status WriteAll(os::File& file, std::string_view bytes) {
  if (Status written = file.Write(bytes); !written.ok()) {
    return Status::Internal("Cannot write log records: " + written.message());
  }
  return {};
}

}  // namespace

Result<RecordWriter> RecordWriter::Open(const std::string& path, const Clock& clock) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code error;
    std::filesystem::create_directories(parent, error);
    if (error) {
      return Status::Internal("Cannot create directory " + parent.string() + ": " +
                              error.message());
    }
  }
  // Never through a link a job planted, and only a regular file (os/file_handle.h).
  Result<os::File> file = os::File::Open(path, os::OpenMode::kReadAppend, 0644);
  if (!file.ok()) {
    return Status::Internal(file.status().message());
  }
  Tail tail = ReadTail(*file);
  if (!tail.ends_with_newline) {
    // A record torn by an earlier writer's failed write: end it, so that ours stay parseable.
    TY_RETURN_IF_ERROR(WriteAll(*file, "\n"));
  }
  return RecordWriter(*std::move(file), clock, std::move(tail.last_timestamp));
}

RecordWriter::RecordWriter(os::File file, const Clock& clock, std::string last_timestamp)
    : file_(std::move(file)), clock_(&clock), last_timestamp_(std::move(last_timestamp)) {}

std::string RecordWriter::Stamp() {
  std::string now = FormatTimestampMicros(clock_->Now());
  if (now < last_timestamp_) {  // fixed width: byte order is time order
    return last_timestamp_;
  }
  last_timestamp_ = now;
  return now;
}

Status RecordWriter::Feed(Stream stream, std::string_view bytes) {
  if (bytes.empty()) {
    return {};
  }
  std::string& pending = pending_[StreamIndex(stream)];
  buffer_.clear();
  std::string stamp;  // taken when the first record is written
  const auto append = [&](std::string_view text) {
    if (stamp.empty()) {
      stamp = Stamp();
    }
    AppendRecord(buffer_, stamp, stream, text);
  };
  while (!bytes.empty()) {
    const auto* newline = static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
    if (newline == nullptr) {
      // A partial line: kept, but never more than kMaxTextBytes of it. A full one is written
      // only when more text follows, so a line of exactly kMaxTextBytes stays one record.
      while (!bytes.empty()) {
        if (pending.size() == kMaxTextBytes) {
          append(pending);
          pending.clear();
        }
        const std::size_t take = std::min(kMaxTextBytes - pending.size(), bytes.size());
        pending.append(bytes.substr(0, take));
        bytes.remove_prefix(take);
      }
      break;
    }
    std::string_view line = bytes.substr(0, static_cast<std::size_t>(newline - bytes.data()));
    bytes.remove_prefix(line.size() + 1);
    if (!pending.empty()) {
      const std::size_t take = std::min(kMaxTextBytes - pending.size(), line.size());
      append(pending);
      buffer_.pop_back();  // the record goes on with the start of `line`
      buffer_.append(line.substr(0, take));
      buffer_.push_back('\n');
      pending.clear();
      line.remove_prefix(take);
      if (line.empty()) {
        continue;
      }
    }
    do {
      const std::size_t take = std::min(kMaxTextBytes, line.size());
      append(line.substr(0, take));
      line.remove_prefix(take);
    } while (!line.empty());
  }
  return buffer_.empty() ? Status() : WriteAll(file_, buffer_);
}

Status RecordWriter::Close(Stream stream) {
  std::string& pending = pending_[StreamIndex(stream)];
  if (pending.empty()) {
    return {};
  }
  buffer_.clear();
  AppendRecord(buffer_, Stamp(), stream, pending);
  pending.clear();
  return WriteAll(file_, buffer_);
}

Status RecordWriter::WriteLine(Stream stream, std::string_view text) {
  buffer_.clear();
  const std::string stamp = Stamp();
  // A '\n' inside would end the record early and leave the rest unparseable: each line of a
  // multi-line text becomes a record of its own.
  while (true) {
    std::string_view line = text.substr(0, text.find('\n'));
    const bool last = line.size() == text.size();
    text.remove_prefix(last ? line.size() : line.size() + 1);
    do {
      const std::size_t take = std::min(kMaxTextBytes, line.size());
      AppendRecord(buffer_, stamp, stream, line.substr(0, take));
      line.remove_prefix(take);
    } while (!line.empty());
    if (last) {
      break;
    }
  }
  return WriteAll(file_, buffer_);
}

}  // namespace trainyard::logs
