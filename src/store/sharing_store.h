// Where issue #34's sharing policy is kept: `<data dir>/sharing.db`, one row per project quota
// and one per priority class, surviving a restart; and the projects' recent use of the devices
// (sched/recent_usage.h), which the executor writes now and then so that a restarted server still
// knows who used them. Each change is one statement (one write; the usage, one transaction). The
// store keeps a quota as the text the admin API accepted (sched/sharing_json.h; store/ does not
// read it); control/sharing_admin.h decodes it. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trainyard::store {

struct SharingRows {
  std::vector<std::pair<std::string, std::string>>
      quotas;  // project → its quota's JSON, by project
  std::vector<std::pair<std::string, int>> priority_classes;  // name → value, by name
};

// The recent usage as last written: seconds of the whole inventory by project, as of `counted`.
struct UsageRows {
  std::vector<std::pair<std::string, double>> projects;  // by project
  std::int64_t counted_unix_ms = 0;                      // 0: nothing was ever written
};

class SharingStore {
 public:
  virtual ~SharingStore() = default;

  virtual Result<SharingRows> Load() const = 0;
  // Replaces (or adds) the quota of `project`.
  virtual Status PutQuota(std::string_view project, std::string_view quota_json) = 0;
  // NOT_FOUND when `project` has none.
  virtual Status DeleteQuota(std::string_view project) = 0;
  virtual Status PutPriorityClass(std::string_view name, int value) = 0;
  // NOT_FOUND when there is none of that name.
  virtual Status DeletePriorityClass(std::string_view name) = 0;

  virtual Result<UsageRows> LoadUsage() const = 0;
  // Replaces the whole record (projects not in `usage` are removed), in one transaction.
  virtual Status PutUsage(const UsageRows& usage) = 0;
};

// Opens (creating) the sharing database at `path`.
Result<std::unique_ptr<SharingStore>> OpenSharingStore(const std::string& path);

// The file of the sharing store in data dir `data_dir`.
std::string SharingStorePath(std::string_view data_dir);

}  // namespace trainyard::store
