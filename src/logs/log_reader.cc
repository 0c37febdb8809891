#include "logs/log_reader.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "base/time_format.h"
#include "base/utf8.h"
#include "logs/record_file.h"

namespace trainyard::logs {
namespace {

constexpr std::string_view kLogSuffix = ".log";
constexpr std::string_view kServiceTask = "service";
constexpr std::string_view kTrialPrefix = "trial-";
// A query's read buffers together; each file gets a share, within these bounds.
constexpr std::size_t kQueryBufferBytes = std::size_t{16} << 20;
constexpr std::size_t kMinChunkBytes = std::size_t{128} << 10;
constexpr std::size_t kMaxChunkBytes = std::size_t{1} << 20;

// ---- Sources ----

// The name a source's insertIds end with: unique within its job.
std::string SourceName(const LogSource& source) {
  if (source.trial_id.empty()) {
    return source.task_name;
  }
  return std::string(kTrialPrefix) + source.trial_id + "/" + source.task_name;
}

void AddSources(const std::filesystem::path& dir, std::string_view project, std::string_view job_id,
                const std::string& trial_id, std::vector<LogSource>& out) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= kLogSuffix.size() || !name.ends_with(kLogSuffix) ||
        !it->is_regular_file(ec)) {
      continue;
    }
    LogSource source{.path = it->path().string(),
                     .project = std::string(project),
                     .job_id = std::string(job_id),
                     .task_name = name.substr(0, name.size() - kLogSuffix.size()),
                     .trial_id = trial_id};
    source.service = source.task_name == kServiceTask;
    out.push_back(std::move(source));
  }
}

// "3" for "trial-3"; nullopt for any other name.
std::optional<std::string> TrialOf(std::string_view name) {
  if (!name.starts_with(kTrialPrefix) || name.size() == kTrialPrefix.size()) {
    return std::nullopt;
  }
  name.remove_prefix(kTrialPrefix.size());
  if (!std::ranges::all_of(name, [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::string(name);
}

// ---- Queries ----

// The request's bounds as record bytes, which compare as the times they spell.
struct Bounds {
  std::optional<std::string> min;  // records before it are skipped
  std::optional<std::string> max;  // records after it are skipped
  const Cursor* after = nullptr;
  // The cursor's insertId split into its offset and source name, when it is one of ours.
  std::optional<std::pair<std::uint64_t, std::string_view>> after_id;
  bool backward = false;
};

// A time as record bytes, truncated to microseconds (so never tighter than the time); nullopt
// for a time outside the fixed-width years, which then bounds nothing.
std::optional<std::string> BoundText(const std::optional<WallTime>& time) {
  if (!time.has_value()) {
    return std::nullopt;
  }
  std::string text = FormatTimestampMicros(*time);
  if (text.size() != kTimestampBytes) {
    return std::nullopt;
  }
  return text;
}

std::optional<std::pair<std::uint64_t, std::string_view>> SplitInsertId(std::string_view id) {
  constexpr std::size_t kDigits = 16;
  if (id.size() <= kDigits || id[kDigits] != '-') {
    return std::nullopt;
  }
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < kDigits; ++i) {
    if (id[i] < '0' || id[i] > '9') {
      return std::nullopt;
    }
    offset = offset * 10 + static_cast<std::uint64_t>(id[i] - '0');
  }
  return std::pair{offset, id.substr(kDigits + 1)};
}

// One source during a query: its file, its scan, and the record at the scan's head.
struct SourceScan {
  SourceScan(const LogSource& s, RecordFile f)
      : source(&s), name(SourceName(s)), file(std::move(f)) {}

  // Moves the head to the next record, passing over corrupt lines; false at the end.
  Result<bool> Advance() {
    LineScan::Line line;
    while (true) {
      Result<bool> more = scan->Next(line);
      if (!more.ok() || !*more) {
        return more;
      }
      if (std::optional<LogRecord> parsed = ParseRecord(line.bytes)) {
        offset = line.offset;
        record = *parsed;
        return true;
      }
    }
  }

  const LogSource* source;
  std::string name;
  RecordFile file;
  std::optional<LineScan> scan;  // over the query's range of `file`
  std::uint64_t offset = 0;
  LogRecord record;
};

// The (timestamp, insertId) order of two heads; insertIds compare as (offset, name) do.
int CompareHeads(const SourceScan& a, const SourceScan& b) {
  if (const int c = a.record.timestamp.compare(b.record.timestamp); c != 0) {
    return c;
  }
  if (a.offset != b.offset) {
    return a.offset < b.offset ? -1 : 1;
  }
  return a.name.compare(b.name);
}

// The byte range of `scan`'s file that can hold records within `bounds`.
Result<std::pair<std::uint64_t, std::uint64_t>> RangeOf(const SourceScan& scan,
                                                        const Bounds& bounds) {
  const RecordFile& file = scan.file;
  std::uint64_t begin = 0;
  std::uint64_t end = file.end();
  if (bounds.min.has_value()) {
    Result<std::uint64_t> at = file.Seek(*bounds.min, /*strictly_after=*/false);
    if (!at.ok()) {
      return at.status();
    }
    begin = *at;
  }
  if (bounds.max.has_value()) {
    Result<std::uint64_t> at = file.Seek(*bounds.max, /*strictly_after=*/true);
    if (!at.ok()) {
      return at.status();
    }
    end = *at;
  }
  if (bounds.after != nullptr && begin < end) {
    // [first, last) holds the records sharing the cursor's timestamp; the cursor's insertId
    // splits them by (offset, name).
    Result<std::uint64_t> first = file.Seek(bounds.after->timestamp, false);
    Result<std::uint64_t> last = file.Seek(bounds.after->timestamp, true);
    if (!first.ok() || !last.ok()) {
      return first.ok() ? last.status() : first.status();
    }
    std::uint64_t cut = bounds.backward ? *last : *first;
    if (bounds.after_id.has_value()) {
      const auto& [offset, name] = *bounds.after_id;
      const bool equal_offset_passes = bounds.backward ? scan.name < name : scan.name > name;
      const bool past = equal_offset_passes == bounds.backward;  // start after `offset`
      Result<std::uint64_t> split = file.NextLineStart(past ? offset + 1 : offset);
      if (!split.ok()) {
        return split.status();
      }
      cut = std::clamp(*split, *first, *last);
    }
    if (bounds.backward) {
      end = std::min(end, cut);
    } else {
      begin = std::max(begin, cut);
    }
  }
  return std::pair{begin, std::max(begin, end)};
}

enum class Verdict { kTake, kSkip, kDone };  // kDone: no later record of the file qualifies

// Whether the head record is within `bounds` (the ranges already exclude what they can; this
// also covers a file whose timestamps are out of order).
Verdict Judge(const SourceScan& scan, const Bounds& bounds, std::string& id) {
  const std::string_view ts = scan.record.timestamp;
  if (bounds.min.has_value() && ts < *bounds.min) {
    return bounds.backward ? Verdict::kDone : Verdict::kSkip;
  }
  if (bounds.max.has_value() && ts > *bounds.max) {
    return bounds.backward ? Verdict::kSkip : Verdict::kDone;
  }
  if (bounds.after != nullptr) {
    int c = ts.compare(bounds.after->timestamp);
    if (c == 0) {
      id = InsertId(scan.offset, scan.name);
      c = id.compare(bounds.after->insert_id);
    }
    if (bounds.backward ? c >= 0 : c <= 0) {
      return Verdict::kSkip;
    }
  }
  return Verdict::kTake;
}

void Fill(const SourceScan& scan, LogEntry& entry) {
  entry.timestamp.assign(scan.record.timestamp);
  entry.insert_id = InsertId(scan.offset, scan.name);
  if (scan.source->audit) {
    entry.severity = scan.record.stream == Stream::kStdout ? Severity::kNotice : Severity::kError;
  } else {
    entry.severity = DetectSeverity(scan.record.stream, scan.record.text, scan.source->service);
  }
  AssignValidUtf8(scan.record.text, entry.text);
  entry.source = scan.source;
}

// The sources with something in range, each at its first record.
Result<std::vector<std::unique_ptr<SourceScan>>> OpenScans(const ReadRequest& request,
                                                           const Bounds& bounds) {
  std::vector<std::unique_ptr<SourceScan>> scans;
  if (request.sources == nullptr) {
    return scans;
  }
  const std::size_t count = std::max<std::size_t>(request.sources->size(), 1);
  const std::size_t chunk = std::clamp(kQueryBufferBytes / count, kMinChunkBytes, kMaxChunkBytes);
  for (const LogSource& source : *request.sources) {
    Result<RecordFile> file = RecordFile::Open(source.path);
    if (!file.ok()) {
      if (file.status().code() == Code::kNotFound) {
        continue;
      }
      return file.status();
    }
    auto scan = std::make_unique<SourceScan>(source, *std::move(file));
    Result<std::pair<std::uint64_t, std::uint64_t>> range = RangeOf(*scan, bounds);
    if (!range.ok()) {
      return range.status();
    }
    if (range->first == range->second) {
      continue;
    }
    scan->scan.emplace(scan->file, range->first, range->second, bounds.backward, chunk);
    Result<bool> any = scan->Advance();
    if (!any.ok()) {
      return any.status();
    }
    if (*any) {
      scans.push_back(std::move(scan));
    }
  }
  return scans;
}

}  // namespace

std::vector<LogSource> ListSources(const std::string& logs_dir, std::string_view project,
                                   std::string_view job_id) {
  std::vector<LogSource> sources;
  const std::filesystem::path dir(logs_dir);
  AddSources(dir, project, job_id, "", sources);
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::optional<std::string> trial = TrialOf(it->path().filename().string());
    if (trial.has_value() && it->is_directory(ec)) {
      AddSources(it->path(), project, job_id, *trial, sources);
    }
  }
  // By task name, then trial by number ("" first).
  std::ranges::sort(sources, [](const LogSource& a, const LogSource& b) {
    if (a.task_name != b.task_name) {
      return a.task_name < b.task_name;
    }
    if (a.trial_id.size() != b.trial_id.size()) {
      return a.trial_id.size() < b.trial_id.size();
    }
    return a.trial_id < b.trial_id;
  });
  return sources;
}

Result<ReadResult> ReadEntries(const ReadRequest& request) {
  Bounds bounds{.min = BoundText(request.min_time),
                .max = BoundText(request.max_time),
                .after = request.after.has_value() ? &*request.after : nullptr,
                .backward = request.order == Order::kDescending};
  if (bounds.after != nullptr) {
    bounds.after_id = SplitInsertId(bounds.after->insert_id);
  }
  Result<std::vector<std::unique_ptr<SourceScan>>> scans = OpenScans(request, bounds);
  if (!scans.ok()) {
    return scans.status();
  }
  // A heap of the sources by head, the next entry in `order` on top.
  std::vector<SourceScan*> heap;
  for (const auto& scan : *scans) {
    heap.push_back(scan.get());
  }
  const auto comes_later = [&](const SourceScan* a, const SourceScan* b) {
    const int c = CompareHeads(*a, *b);
    return bounds.backward ? c < 0 : c > 0;
  };
  std::ranges::make_heap(heap, comes_later);

  ReadResult result;
  LogEntry entry;
  std::string id;
  while (!heap.empty()) {
    std::ranges::pop_heap(heap, comes_later);
    SourceScan& scan = *heap.back();
    const Verdict verdict = Judge(scan, bounds, id);
    if (verdict == Verdict::kTake) {
      Fill(scan, entry);
      if (!request.matches || request.matches(entry)) {
        if (result.entries.size() >= request.limit) {
          result.more = true;
          break;
        }
        result.entries.push_back(entry);
      }
    }
    Result<bool> next = verdict == Verdict::kDone ? Result<bool>(false) : scan.Advance();
    if (!next.ok()) {
      return next.status();
    }
    if (*next) {
      std::ranges::push_heap(heap, comes_later);
    } else {
      heap.pop_back();
    }
  }
  return result;
}

std::string ReadWholeRecordsFrom(const std::string& path, std::uint64_t offset) {
  Result<RecordFile> file = RecordFile::Open(path);
  if (!file.ok() || file->end() <= offset) {
    return {};
  }
  std::string bytes(file->end() - offset, '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    Result<std::size_t> read = file->ReadAt(offset + got, bytes.data() + got, bytes.size() - got);
    if (!read.ok() || *read == 0) {
      break;
    }
    got += *read;
  }
  bytes.resize(got);  // short only if the file was cut since it was opened
  const std::size_t last = bytes.rfind('\n');
  bytes.resize(last == std::string::npos ? 0 : last + 1);
  return bytes;
}

std::string ReadStderrTail(const std::string& path, std::size_t max_bytes) {
  Result<RecordFile> file = RecordFile::Open(path);
  if (!file.ok()) {
    return {};
  }
  const std::uint64_t end = file->end();
  Result<std::uint64_t> begin = file->NextLineStart(end > max_bytes ? end - max_bytes : 0);
  if (!begin.ok()) {
    return {};
  }
  LineScan scan(*file, *begin, end, /*backward=*/false, kMaxChunkBytes);
  LineScan::Line line;
  std::string tail;
  std::string text;
  for (Result<bool> more = scan.Next(line); more.ok() && *more; more = scan.Next(line)) {
    std::optional<LogRecord> record = ParseRecord(line.bytes);
    if (!record.has_value() || record->stream != Stream::kStderr) {
      continue;
    }
    AssignValidUtf8(record->text, text);
    if (!tail.empty()) {
      tail.push_back('\n');
    }
    tail += text;
  }
  return tail;
}

}  // namespace trainyard::logs
