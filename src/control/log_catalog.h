// What the data directory holds of the logs, for logging v2's entries:list (logs/log_sources.h
// decides which of it a query reads): the job directories under `<data>/jobs/<project>/`
// (control/job_layout.h), each job's record files (logs::ListSources) and the activity audit
// log (store/audit_store.h). Reads the file system; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "logs/log_sources.h"

namespace trainyard::control {

class FileLogCatalog final : public logs::LogCatalog {
 public:
  explicit FileLogCatalog(std::string data_dir) : data_dir_(std::move(data_dir)) {}

  // Only names that are stored job ids (validate::IsStoredJobId) count as jobs, so a hostile
  // name never becomes a path.
  std::vector<std::string> Jobs(std::string_view project) const override;
  std::vector<logs::LogSource> JobSources(std::string_view project,
                                          std::string_view job_id) const override;
  std::string AuditLogPath(std::string_view project) const override;

 private:
  std::string data_dir_;
};

}  // namespace trainyard::control
