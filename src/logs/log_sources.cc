#include "logs/log_sources.h"

#include <utility>

#include "access/audit.h"

namespace trainyard::logs {
namespace {

bool AllowsTask(const LogFilter::Scope& scope, std::string_view task_name) {
  return !scope.task_names.has_value() || scope.task_names->contains(std::string(task_name));
}

}  // namespace

std::vector<LogSource> SourcesFor(const std::vector<std::string>& projects,
                                  const LogFilter::Scope& scope, const LogCatalog& catalog) {
  std::vector<LogSource> sources;
  for (const std::string& project : projects) {
    if (scope.project.has_value() && *scope.project != project) {
      continue;
    }
    if (!scope.job_id.has_value() && AllowsTask(scope, access::kAuditLogId)) {
      sources.push_back(LogSource{.path = catalog.AuditLogPath(project),
                                  .project = project,
                                  .task_name = std::string(access::kAuditLogId),
                                  .audit = true});
    }
    if (project == access::kServerWideProject) {
      continue;  // no jobs
    }
    const std::vector<std::string> jobs =
        scope.job_id.has_value() ? std::vector<std::string>{*scope.job_id} : catalog.Jobs(project);
    for (const std::string& job : jobs) {
      for (LogSource& source : catalog.JobSources(project, job)) {
        if (AllowsTask(scope, source.task_name)) {
          sources.push_back(std::move(source));
        }
      }
    }
  }
  return sources;
}

}  // namespace trainyard::logs
