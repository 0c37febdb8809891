#include "store/audit_store.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "base/time_format.h"
#include "logs/log_record.h"
#include "os/dir.h"

namespace trainyard::store {
namespace {

constexpr std::string_view kFileName = "activity.log";
// A record's text is at most this long (a message is cut to 2 KiB, a resource name is bounded by
// the request head), so the newest record starts within the last this many bytes.
constexpr std::size_t kTailBytes = std::size_t{80} << 10;

// The timestamp of the last whole record of `file`; empty when none.
std::string LastTimestamp(const os::File& file) {
  Result<os::FileStatus> info = file.Info();
  if (!info.ok() || info->size <= 0) {
    return {};
  }
  const auto size = static_cast<std::size_t>(info->size);
  const std::size_t length = std::min(size, kTailBytes);
  std::string tail(length, '\0');
  Result<std::size_t> got = file.ReadAt(size - length, tail.data(), length);
  if (!got.ok() || *got != length) {
    return {};
  }
  std::string_view text(tail);
  if (const std::size_t end = text.rfind('\n'); end != std::string_view::npos) {
    text = text.substr(0, end);
  } else {
    return {};
  }
  const std::size_t start = text.rfind('\n');
  const std::string_view line = start == std::string_view::npos ? text : text.substr(start + 1);
  const std::optional<logs::LogRecord> record = logs::ParseRecord(line);
  return record.has_value() ? std::string(record->timestamp) : std::string();
}

// `status` of an os/ call, worded as the audit log's error.
Status AuditError(std::string_view what, const Status& status) {
  return Status::Internal(std::string(what) + ": " + status.message());
}

}  // namespace

std::string AuditDir(std::string_view data_dir) {
  return (std::filesystem::path(data_dir) / "audit").string();
}

std::string AuditLogPath(std::string_view audit_dir, std::string_view project) {
  return (std::filesystem::path(audit_dir) / project / kFileName).string();
}

FileAuditStore::FileAuditStore(std::string audit_dir) : dir_(std::move(audit_dir)) {}
FileAuditStore::~FileAuditStore() = default;

Result<FileAuditStore::Log*> FileAuditStore::Open(const std::string& project) {
  if (auto it = logs_.find(project); it != logs_.end()) {
    return &it->second;
  }
  // The directories are the server's own (0700), and so are the files in them.
  Result<os::Dir> audit = os::Dir::OpenOrMake(dir_, 0700);
  Result<os::Dir> dir =
      audit.ok() ? audit->MakeDir(project, 0700) : Result<os::Dir>(audit.status());
  if (!dir.ok()) {
    return AuditError("Cannot create the audit directory", dir.status());
  }
  Result<os::File> file = dir->OpenFile(std::string(kFileName), os::OpenMode::kAppend, 0600);
  if (!file.ok()) {
    return AuditError("Cannot open the audit log", file.status());
  }
  // Read the newest timestamp through a second descriptor: the first is write-only.
  std::string last;
  if (Result<os::File> reader = dir->OpenFile(std::string(kFileName), os::OpenMode::kRead);
      reader.ok()) {
    last = LastTimestamp(*reader);
  }
  const auto added =
      logs_.emplace(project, Log{.file = *std::move(file), .last_timestamp = std::move(last)});
  return &added.first->second;
}

Status FileAuditStore::Append(const access::AuditEvent& event) {
  const std::string text = access::EncodeAuditRecord(event);
  const std::string project =
      event.project.empty() ? std::string(access::kServerWideProject) : event.project;
  std::string timestamp = FormatTimestampMicros(event.time);
  std::scoped_lock lock(mu_);
  Result<Log*> log = Open(project);
  if (!log.ok()) {
    return log.status();
  }
  if (timestamp.size() != logs::kTimestampBytes || timestamp < (*log)->last_timestamp) {
    timestamp = (*log)->last_timestamp;  // a clock that stepped back, or a year past 9999
  }
  std::string line;
  logs::AppendRecord(line, timestamp,
                     access::Failed(event) ? logs::Stream::kStderr : logs::Stream::kStdout, text);
  if (Status written = (*log)->file.Write(line); !written.ok()) {
    return AuditError("Cannot append to the audit log", written);
  }
  (*log)->last_timestamp = std::move(timestamp);
  return Status();
}

}  // namespace trainyard::store
