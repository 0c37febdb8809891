#include "store/audit_store.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include "base/time_format.h"
#include "logs/log_record.h"

namespace trainyard::store {
namespace {

constexpr std::string_view kFileName = "activity.log";
// A record's text is at most this long (a message is cut to 2 KiB, a resource name is bounded by
// the request head), so the newest record starts within the last this many bytes.
constexpr std::size_t kTailBytes = std::size_t{80} << 10;

Status ErrnoStatus(std::string_view what, const std::string& path) {
  return Status::Internal(fmt::format("{} {}: {}", what, path, std::strerror(errno)));
}

// The timestamp of the last whole record of the file open at `fd`; empty when none.
std::string LastTimestamp(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0 || info.st_size <= 0) {
    return {};
  }
  const auto size = static_cast<std::size_t>(info.st_size);
  const std::size_t length = std::min(size, kTailBytes);
  std::string tail(length, '\0');
  const ssize_t got = ::pread(fd, tail.data(), length, static_cast<off_t>(size - length));
  if (got != static_cast<ssize_t>(length)) {
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
  const std::string path = AuditLogPath(dir_, project);
  for (const std::filesystem::path& dir :
       {std::filesystem::path(dir_), std::filesystem::path(path).parent_path()}) {
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return ErrnoStatus("Cannot create the audit directory", dir.string());
    }
  }
  os::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    return ErrnoStatus("Cannot open the audit log", path);
  }
  // Read the newest timestamp through a second descriptor: fd is write-only.
  std::string last;
  if (os::UniqueFd reader(::open(path.c_str(), O_RDONLY | O_CLOEXEC)); reader.valid()) {
    last = LastTimestamp(reader.get());
  }
  Log& log = logs_[project];
  log.fd = std::move(fd);
  log.last_timestamp = std::move(last);
  return &log;
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
  const ssize_t wrote = ::write((*log)->fd.get(), line.data(), line.size());
  if (wrote != static_cast<ssize_t>(line.size())) {
    return ErrnoStatus("Cannot append to the audit log", AuditLogPath(dir_, project));
  }
  (*log)->last_timestamp = std::move(timestamp);
  return Status();
}

}  // namespace trainyard::store
