// Which log files an `entries:list` query reads: the rule, over a catalogue of what the data
// directory holds. The rule is pure; the catalogue is the effect, implemented where the file
// layout lives (control/log_catalog.h: the job directories, store/'s audit log), and in memory
// by the rule's tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "logs/log_entry.h"
#include "logs/log_filter.h"

namespace trainyard::logs {

// What a data directory holds of the logs.
class LogCatalog {
 public:
  virtual ~LogCatalog() = default;

  // `project`'s jobs (each with a directory), in id order.
  virtual std::vector<std::string> Jobs(std::string_view project) const = 0;
  // The sources of `project`'s job `job_id`, as ListSources (logs/log_reader.h) orders them;
  // none when the job has no logs, or `job_id` cannot be a stored job's.
  virtual std::vector<LogSource> JobSources(std::string_view project,
                                            std::string_view job_id) const = 0;
  // The records file of `project`'s activity audit log (`project` may be the server-wide "-").
  virtual std::string AuditLogPath(std::string_view project) const = 0;
};

// The sources a query over `projects` (ResolveProjects, logs/list_query.h) reads, given its
// filter's `scope`: of each project the filter's project leaves, first its activity audit log
// when the scope can hold audit entries (it names no job, and its task names, if any, include the
// audit log's id), then the filter's job or else every job, each job's sources whose task the
// scope's task names allow. The server-wide log ("-", access::kServerWideProject) has no jobs:
// only its audit log is read.
std::vector<LogSource> SourcesFor(const std::vector<std::string>& projects,
                                  const LogFilter::Scope& scope, const LogCatalog& catalog);

}  // namespace trainyard::logs
