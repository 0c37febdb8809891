// What the data directory holds of the logs (control/log_catalog.h): a project's jobs are its
// directories with a stored job's id, in id order; a job's sources are its logs directory's; a
// name that cannot be a job's never becomes a path; the audit log is store/'s file.
#include "control/log_catalog.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "control/job_layout.h"
#include "fakes/temp_dir.h"
#include "store/audit_store.h"

namespace trainyard::control {
namespace {

namespace fs = std::filesystem;

TEST(FileLogCatalogTest, JobsAreTheProjectsJobDirectoriesInIdOrder) {
  const ::trainyard::testing::TempDir dir;
  const std::string data = dir.path().string();
  for (const char* job : {"job_b", "job_a", "1234567890123456789", "bad name", ".hidden"}) {
    fs::create_directories(JobLayout(data, "p", job).logs_dir());
  }
  std::ofstream(ProjectJobsDir(data, "p") + "/job_file") << "not a directory";
  fs::create_directories(JobLayout(data, "q", "other").root());
  const FileLogCatalog catalog(data);
  EXPECT_EQ(catalog.Jobs("p"), (std::vector<std::string>{"1234567890123456789", "job_a", "job_b"}));
  EXPECT_EQ(catalog.Jobs("q"), std::vector<std::string>{"other"});
  EXPECT_TRUE(catalog.Jobs("absent").empty());
}

TEST(FileLogCatalogTest, AJobsSourcesAreItsLogsAndANameThatCannotBeAJobsIsNone) {
  const ::trainyard::testing::TempDir dir;
  const std::string data = dir.path().string();
  const JobLayout layout(data, "p", "job_a");
  fs::create_directories(layout.logs_dir());
  std::ofstream(layout.logs_dir() + "/master-replica-0.log");
  std::ofstream(layout.logs_dir() + "/service.log");
  const FileLogCatalog catalog(data);
  std::vector<std::string> tasks;
  for (const logs::LogSource& source : catalog.JobSources("p", "job_a")) {
    EXPECT_EQ(source.project, "p");
    EXPECT_EQ(source.job_id, "job_a");
    tasks.push_back(source.task_name);
  }
  EXPECT_EQ(tasks, (std::vector<std::string>{"master-replica-0", "service"}));
  EXPECT_TRUE(catalog.JobSources("p", "job_b").empty());
  // Ids that would reach job_a's logs through a path: no job can have them.
  EXPECT_TRUE(catalog.JobSources("p", "job_a/logs/..").empty());
  EXPECT_TRUE(catalog.JobSources("p", "job_b/../job_a").empty());
  EXPECT_TRUE(catalog.JobSources("p", "..").empty());
  EXPECT_TRUE(catalog.JobSources("p", "").empty());
}

TEST(FileLogCatalogTest, TheAuditLogIsTheAuditStoresFile) {
  const FileLogCatalog catalog("/data");
  EXPECT_EQ(catalog.AuditLogPath("p"), store::AuditLogPath(store::AuditDir("/data"), "p"));
  EXPECT_EQ(catalog.AuditLogPath("-"), store::AuditLogPath(store::AuditDir("/data"), "-"));
}

}  // namespace
}  // namespace trainyard::control
