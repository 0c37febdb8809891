// Which files an entries:list query reads (logs/log_sources.h), over an in-memory catalogue: the
// audit log unless the filter names a job or other tasks, the filter's job or every job, only
// the tasks the filter names, only the filter's project, and no jobs for the server-wide log.
#include "logs/log_sources.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::logs {
namespace {

constexpr std::string_view kAudit = "cloudaudit.googleapis.com%2Factivity";

// Projects' jobs and each job's tasks; a source's path is "<project>/<job>/<task>", an audit
// log's "audit/<project>".
class FakeCatalog final : public LogCatalog {
 public:
  FakeCatalog(std::map<std::string, std::map<std::string, std::vector<std::string>>> jobs)
      : jobs_(std::move(jobs)) {}

  std::vector<std::string> Jobs(std::string_view project) const override {
    std::vector<std::string> out;
    if (const auto it = jobs_.find(std::string(project)); it != jobs_.end()) {
      for (const auto& [job, tasks] : it->second) {
        out.push_back(job);
      }
    }
    return out;
  }
  std::vector<LogSource> JobSources(std::string_view project,
                                    std::string_view job_id) const override {
    std::vector<LogSource> out;
    const auto it = jobs_.find(std::string(project));
    if (it == jobs_.end()) {
      return out;
    }
    const auto job = it->second.find(std::string(job_id));
    if (job == it->second.end()) {
      return out;
    }
    for (const std::string& task : job->second) {
      out.push_back({.path = std::string(project) + "/" + std::string(job_id) + "/" + task,
                     .project = std::string(project),
                     .job_id = std::string(job_id),
                     .task_name = task});
    }
    return out;
  }
  std::string AuditLogPath(std::string_view project) const override {
    return "audit/" + std::string(project);
  }

 private:
  std::map<std::string, std::map<std::string, std::vector<std::string>>> jobs_;
};

const FakeCatalog kCatalog({
    {"p", {{"j1", {"master-replica-0", "service"}}, {"j2", {"master-replica-0"}}}},
    {"q", {{"k", {"worker-replica-0"}}}},
    // Whatever a catalogue holds under "-", the server-wide log reads none of it.
    {"-", {{"j1", {"master-replica-0"}}}},
});

TEST(SourcesForTest, ReadsWhatTheFiltersScopeCanHold) {
  using Tasks = std::set<std::string>;
  const std::string audit(kAudit);
  const struct {
    std::string_view name;
    std::vector<std::string> projects;
    std::optional<std::string> project;  // the filter's scope
    std::optional<std::string> job_id;
    std::optional<Tasks> task_names;
    std::vector<std::string> paths;
  } cases[] = {
      {"EverythingOfTheProject",
       {"p"},
       std::nullopt,
       std::nullopt,
       std::nullopt,
       {"audit/p", "p/j1/master-replica-0", "p/j1/service", "p/j2/master-replica-0"}},
      {"ProjectsInTheOrderNamed",
       {"q", "p"},
       std::nullopt,
       std::nullopt,
       std::nullopt,
       {"audit/q", "q/k/worker-replica-0", "audit/p", "p/j1/master-replica-0", "p/j1/service",
        "p/j2/master-replica-0"}},
      {"TheFiltersJobOnlyAndNoAudit",
       {"p"},
       std::nullopt,
       "j1",
       std::nullopt,
       {"p/j1/master-replica-0", "p/j1/service"}},
      {"AJobTheProjectLacks", {"p"}, std::nullopt, "k", std::nullopt, {}},
      {"TheFiltersTasks", {"p"}, std::nullopt, std::nullopt, Tasks{"service"}, {"p/j1/service"}},
      {"TheAuditLogByItsId", {"p"}, std::nullopt, std::nullopt, Tasks{audit}, {"audit/p"}},
      {"AJobsTaskAndTheAuditLog",
       {"p"},
       std::nullopt,
       "j2",
       Tasks{audit, "master-replica-0"},
       {"p/j2/master-replica-0"}},
      {"OnlyTheFiltersProject",
       {"p", "q"},
       "q",
       std::nullopt,
       std::nullopt,
       {"audit/q", "q/k/worker-replica-0"}},
      {"TheFiltersProjectNotNamed", {"p"}, "q", std::nullopt, std::nullopt, {}},
      {"ServerWideIsTheAuditLogOnly", {"-"}, std::nullopt, std::nullopt, std::nullopt, {"audit/-"}},
      {"ServerWideWithAJobIsNothing", {"-"}, std::nullopt, "j1", std::nullopt, {}},
      {"ServerWideBesideAProject",
       {"-", "q"},
       std::nullopt,
       std::nullopt,
       std::nullopt,
       {"audit/-", "audit/q", "q/k/worker-replica-0"}},
      {"AnEmptyProject", {"r"}, std::nullopt, std::nullopt, std::nullopt, {"audit/r"}},
  };
  for (const auto& c : cases) {
    LogFilter::Scope scope;
    scope.project = c.project;
    scope.job_id = c.job_id;
    scope.task_names = c.task_names;
    const std::vector<LogSource> sources = SourcesFor(c.projects, scope, kCatalog);
    std::vector<std::string> paths;
    for (const LogSource& source : sources) {
      paths.push_back(source.path);
    }
    EXPECT_EQ(paths, c.paths) << c.name;
  }
}

TEST(SourcesForTest, TheAuditLogIsNamedAsItsProjectsActivityLog) {
  const std::vector<LogSource> sources = SourcesFor({"p"}, LogFilter::Scope{}, kCatalog);
  ASSERT_FALSE(sources.empty());
  EXPECT_TRUE(sources[0].audit);
  EXPECT_EQ(sources[0].project, "p");
  EXPECT_EQ(sources[0].task_name, kAudit);
  EXPECT_EQ(sources[0].job_id, "");
  for (std::size_t i = 1; i < sources.size(); ++i) {
    EXPECT_FALSE(sources[i].audit) << sources[i].path;
  }
}

}  // namespace
}  // namespace trainyard::logs
