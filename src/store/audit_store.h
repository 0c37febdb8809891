// The activity audit log's store (issue #17): append-only, one records file per project,
// `<data>/audit/<project>/activity.log` (and `<data>/audit/-/activity.log` for calls that name
// no project), in the record format of the jobs' logs (logs/log_record.h) with the call's
// AuditLog as the text (access/audit.h EncodeAuditRecord) and the stream saying the outcome
// ('O' succeeded, 'E' failed). So logging v2 entries:list reads it with the jobs' log reader:
// seeks by time, merges, pages. Records are never changed or removed by trainyard.
//
// Within a file timestamps never decrease (a clock that steps back is clamped, also across
// restarts), as the reader's binary search needs. Each record is one write(2) to a file opened
// O_APPEND, made under a lock, so a reader never sees half a record before its end. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "access/audit.h"
#include "base/status.h"
#include "os/unique_fd.h"

namespace trainyard::store {

class AuditStore {
 public:
  virtual ~AuditStore() = default;
  // Appends `event` to its project's log. An error says what failed; nothing is half written.
  virtual Status Append(const access::AuditEvent& event) = 0;
};

// The audit directory of data directory `data_dir`.
std::string AuditDir(std::string_view data_dir);
// The records file of `project`'s activity log under `audit_dir` (`project` a valid project id
// or access::kServerWideProject).
std::string AuditLogPath(std::string_view audit_dir, std::string_view project);

class FileAuditStore final : public AuditStore {
 public:
  // Files are created (mode 0600, directories 0700) on their first record.
  explicit FileAuditStore(std::string audit_dir);
  ~FileAuditStore() override;

  Status Append(const access::AuditEvent& event) override;

 private:
  struct Log {
    os::UniqueFd fd;
    std::string last_timestamp;  // of the newest record, for the clamp
  };
  Result<Log*> Open(const std::string& project);  // with mu_ held

  std::string dir_;
  std::mutex mu_;
  std::map<std::string, Log, std::less<>> logs_;
};

}  // namespace trainyard::store
