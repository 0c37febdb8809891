// The activity audit log's store (store/audit_store.h): one records file per project that the
// logs reader reads back, outcomes as severities, timestamps that never go back (also after a
// reopen), the server-wide log, and private files.
#include "store/audit_store.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "base/time_format.h"
#include "fakes/temp_dir.h"
#include "logs/log_reader.h"

namespace trainyard::store {
namespace {

using access::AuditEvent;
using testing::TempDir;

WallTime At(std::string_view text) {
  return *ParseTimestamp(text);
}

AuditEvent Event(std::string project, std::string method, WallTime time, Code code = Code::kOk) {
  return AuditEvent{.time = time,
                    .project = std::move(project),
                    .service = "ml.googleapis.com",
                    .method = std::move(method),
                    .principal = "alice",
                    .code = code};
}

// The entries of `project`'s log, oldest first.
std::vector<logs::LogEntry> ReadBack(const std::string& audit_dir, const std::string& project,
                                     std::vector<logs::LogSource>& sources) {
  sources = {logs::LogSource{.path = AuditLogPath(audit_dir, project),
                             .project = project,
                             .task_name = std::string(access::kAuditLogId),
                             .audit = true}};
  Result<logs::ReadResult> read = logs::ReadEntries({.sources = &sources});
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  return read.ok() ? read->entries : std::vector<logs::LogEntry>{};
}

class AuditStoreTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::string audit_dir_ = AuditDir(dir_.path().string());
  std::vector<logs::LogSource> sources_;
};

TEST_F(AuditStoreTest, EachProjectHasItsLogReadBackInOrderWithOutcomesAsSeverities) {
  FileAuditStore store(audit_dir_);
  ASSERT_TRUE(store.Append(Event("p", "Create", At("2026-01-01T00:00:01Z"))).ok());
  ASSERT_TRUE(store.Append(Event("q", "Other", At("2026-01-01T00:00:02Z"))).ok());
  ASSERT_TRUE(
      store.Append(Event("p", "Cancel", At("2026-01-01T00:00:03Z"), Code::kPermissionDenied)).ok());

  const std::vector<logs::LogEntry> p = ReadBack(audit_dir_, "p", sources_);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].timestamp, "2026-01-01T00:00:01.000000Z");
  EXPECT_EQ(p[0].severity, logs::Severity::kNotice);
  EXPECT_NE(p[0].text.find(R"("methodName":"Create")"), std::string::npos) << p[0].text;
  EXPECT_EQ(p[1].severity, logs::Severity::kError);
  EXPECT_NE(p[1].text.find(R"("methodName":"Cancel")"), std::string::npos);
  EXPECT_EQ(ReadBack(audit_dir_, "q", sources_).size(), 1u);
}

TEST_F(AuditStoreTest, TimestampsNeverGoBackAlsoAfterAReopen) {
  {
    FileAuditStore store(audit_dir_);
    ASSERT_TRUE(store.Append(Event("p", "A", At("2026-01-01T00:00:05Z"))).ok());
    ASSERT_TRUE(store.Append(Event("p", "B", At("2026-01-01T00:00:04Z"))).ok());
  }
  FileAuditStore reopened(audit_dir_);
  ASSERT_TRUE(reopened.Append(Event("p", "C", At("2026-01-01T00:00:03Z"))).ok());
  ASSERT_TRUE(reopened.Append(Event("p", "D", At("2026-01-01T00:00:06Z"))).ok());

  const std::vector<logs::LogEntry> entries = ReadBack(audit_dir_, "p", sources_);
  std::vector<std::string> times;
  for (const logs::LogEntry& entry : entries) {
    times.push_back(entry.timestamp);
  }
  EXPECT_EQ(times, (std::vector<std::string>{
                       "2026-01-01T00:00:05.000000Z", "2026-01-01T00:00:05.000000Z",
                       "2026-01-01T00:00:05.000000Z", "2026-01-01T00:00:06.000000Z"}));
}

TEST_F(AuditStoreTest, CallsWithoutAProjectGoToTheServerWideLog) {
  FileAuditStore store(audit_dir_);
  ASSERT_TRUE(store.Append(Event("", "trainyard.metrics.get", At("2026-01-01T00:00:01Z"))).ok());
  EXPECT_TRUE(std::filesystem::exists(AuditLogPath(audit_dir_, access::kServerWideProject)));
  EXPECT_EQ(ReadBack(audit_dir_, std::string(access::kServerWideProject), sources_).size(), 1u);
}

TEST_F(AuditStoreTest, FilesArePrivate) {
  FileAuditStore store(audit_dir_);
  ASSERT_TRUE(store.Append(Event("p", "A", At("2026-01-01T00:00:01Z"))).ok());
  struct stat info {};
  ASSERT_EQ(::stat(AuditLogPath(audit_dir_, "p").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(audit_dir_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
}

TEST_F(AuditStoreTest, AnUnwritableDirectoryIsAnErrorNotACrash) {
  std::filesystem::create_directories(dir_.path() / "file");
  std::filesystem::remove(dir_.path() / "file");
  {
    std::FILE* f = std::fopen((dir_.path() / "file").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  FileAuditStore store((dir_.path() / "file" / "audit").string());  // under a regular file
  const Status status = store.Append(Event("p", "A", At("2026-01-01T00:00:01Z")));
  EXPECT_EQ(status.code(), Code::kInternal);
  EXPECT_NE(status.message().find("audit"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace trainyard::store
