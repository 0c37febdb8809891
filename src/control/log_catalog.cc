#include "control/log_catalog.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "control/job_layout.h"
#include "logs/log_reader.h"
#include "store/audit_store.h"
#include "validate/validate.h"

namespace trainyard::control {

std::vector<std::string> FileLogCatalog::Jobs(std::string_view project) const {
  std::vector<std::string> jobs;
  std::error_code ec;
  const std::filesystem::path dir = ProjectJobsDir(data_dir_, project);
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (validate::IsStoredJobId(name) && it->is_directory(ec)) {
      jobs.push_back(std::move(name));
    }
  }
  std::ranges::sort(jobs);
  return jobs;
}

std::vector<logs::LogSource> FileLogCatalog::JobSources(std::string_view project,
                                                        std::string_view job_id) const {
  if (!validate::IsStoredJobId(job_id)) {
    return {};  // no such job can exist
  }
  return logs::ListSources(JobLayout(data_dir_, project, job_id).logs_dir(), project, job_id);
}

std::string FileLogCatalog::AuditLogPath(std::string_view project) const {
  return store::AuditLogPath(store::AuditDir(data_dir_), project);
}

}  // namespace trainyard::control
