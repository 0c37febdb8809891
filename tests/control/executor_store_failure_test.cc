// The executor when the job store refuses a change for a while (a full disk: SQLite answers
// SQLITE_FULL, RESOURCE_EXHAUSTED): the outcome of a job whose replicas ended is written once the
// store takes it again, without a restart, and said in the service log once; a queued job's start
// the store refused is warned about once and made on a later scan; the projects' recent use
// (sched/recent_usage.h) is written at most once an interval, and a refused write is warned about
// and made an interval later.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/disk_full.h"
#include "control/executor_fixture.h"
#include "control/job_layout.h"
#include "fakes/failing_job_store.h"
#include "store/sharing_store.h"

namespace trainyard::control {
namespace {

using testing::FailingJobStore;

class ExecutorStoreFailureTest : public ExecutorTest {
 protected:
  ExecutorStoreFailureTest() {
    auto failing = std::make_unique<FailingJobStore>(std::move(store_));
    failing_ = failing.get();
    store_ = std::move(failing);
    controller_ = std::make_unique<JobController>(*store_, catalog::Catalog::Builtin(), clock_);
  }

  int Occurrences(std::string_view job_id, std::string_view text) {
    std::ifstream in(
        JobLayout(dir_.path().string(), std::string(kProject), std::string(job_id)).service_log());
    std::stringstream all;
    all << in.rdbuf();
    const std::string log = all.str();
    int count = 0;
    for (std::size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) {
      ++count;
    }
    return count;
  }

  // Warn's messages go to warnings_ instead of stderr.
  void CaptureWarnings() {
    customize_ = [this](ExecutorOptions& options) {
      options.warn = [this](std::string_view message) { warnings_.emplace_back(message); };
    };
  }

  FailingJobStore* failing_ = nullptr;
  std::vector<std::string> warnings_;
};

TEST_F(ExecutorStoreFailureTest, AnOutcomeTheStoreRefusedIsWrittenOnceItHasRoomAgain) {
  for (const Status& refusal :
       {DiskFullError("store the change in its database", "database or disk is full"),
        Status::Unavailable("sqlite: database is locked")}) {
    SCOPED_TRACE(refusal.ToString());
    const std::string id = refusal.code() == Code::kUnavailable ? "busy" : "full";
    Submit(ValidRuntimeJob(id));
    clock_.Advance(std::chrono::seconds(1));  // the next queue scan
    Settle();
    ASSERT_EQ(Get(id).state, JobState::kRunning);
    const int pid = launcher_.started().back().pid;

    failing_->FailWrites(refusal);
    Exit(pid, Exited(0));
    clock_.Advance(std::chrono::seconds(5));
    Settle();
    EXPECT_EQ(Get(id).state, JobState::kRunning) << "the store refused every change";

    failing_->FailWrites(Status());
    Settle();
    EXPECT_EQ(Get(id).state, JobState::kSucceeded);
    EXPECT_EQ(Occurrences(id, "Job completed successfully."), 1);
    EXPECT_EQ(launcher_.SignalsTo(pid), std::vector<int>{SIGKILL}) << "its group, once";
  }
}

TEST_F(ExecutorStoreFailureTest, AStartTheStoreRefusedIsWarnedOnceAndMadeOnALaterScan) {
  CaptureWarnings();
  Submit(ValidRuntimeJob("queued"));
  failing_->FailWrites(
      DiskFullError("store the change in its database", "database or disk is full"));
  for (int scan = 0; scan < 3; ++scan) {
    clock_.Advance(std::chrono::seconds(1));  // the next queue scan
    Settle();
  }
  EXPECT_EQ(Get("queued").state, JobState::kQueued);
  EXPECT_TRUE(launcher_.started().empty());
  ASSERT_EQ(warnings_.size(), 1U) << "three scans, one warning";
  EXPECT_NE(warnings_[0].find("The job p/queued was not updated (start while QUEUED)"),
            std::string::npos)
      << warnings_[0];

  failing_->FailWrites(Status());
  clock_.Advance(std::chrono::seconds(1));
  Settle();
  EXPECT_EQ(Get("queued").state, JobState::kRunning);
  EXPECT_EQ(launcher_.started().size(), 1U);
}

// A restarted server whose writes are refused while it takes over: the jobs it could not take
// over are orphans, ended by a later pass once the store takes writes again (level-triggered:
// nothing remembers that recovery's write was lost).
TEST_F(ExecutorStoreFailureTest, AJobRecoveryCouldNotEndIsEndedByALaterPass) {
  CaptureWarnings();
  Submit(ValidRuntimeJob("was_running"));
  SetStoredState("was_running", JobState::kRunning);
  failing_->FailWrites(Status::Unavailable("sqlite: database is locked"));
  executor().Recover();
  Settle();
  EXPECT_EQ(Get("was_running").state, JobState::kRunning) << "the store refused every change";
  ASSERT_EQ(warnings_.size(), 1U);
  EXPECT_NE(warnings_[0].find("The job p/was_running was not updated (taken back while RUNNING)"),
            std::string::npos)
      << warnings_[0];

  failing_->FailWrites(Status());
  clock_.Advance(std::chrono::seconds(1));  // the next queue scan
  Settle();
  const model::Job failed = Get("was_running");
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_NE(failed.error_message.find("server restarted"), std::string::npos);
}

// A run record that cannot be written (here a directory stands where it goes) is said: without
// it a restarted server cannot adopt the replicas. The job runs on regardless.
TEST_F(ExecutorStoreFailureTest, ARunRecordThatCannotBeWrittenIsWarnedAbout) {
  CaptureWarnings();
  Submit(ValidRuntimeJob("unrecorded"));
  const JobLayout layout(dir_.path().string(), std::string(kProject), "unrecorded");
  std::filesystem::create_directories(layout.run_record() + "/in-the-way");
  clock_.Advance(std::chrono::seconds(1));  // the next queue scan
  Settle();
  EXPECT_EQ(Get("unrecorded").state, JobState::kRunning);
  ASSERT_EQ(warnings_.size(), 1U);
  EXPECT_NE(warnings_[0].find("The run record of p/unrecorded was not written; a restarted server "
                              "could not adopt its replicas"),
            std::string::npos)
      << warnings_[0];
}

// A server whose store cannot list the jobs when it starts takes over what the previous one left
// on a later scan, and places nothing before it has: the old replicas may still hold devices.
TEST_F(ExecutorStoreFailureTest, ARecoveryThatCouldNotListTheJobsIsMadeOnALaterScan) {
  CaptureWarnings();
  Submit(ValidRuntimeJob("was_running"));
  SetStoredState("was_running", JobState::kRunning);
  Submit(ValidRuntimeJob("queued"));
  failing_->FailLists(Status::Unavailable("sqlite: unable to open database file"));
  executor().Recover();
  for (int scan = 0; scan < 3; ++scan) {
    clock_.Advance(std::chrono::seconds(1));  // the next queue scan
    Settle();
  }
  EXPECT_EQ(Get("was_running").state, JobState::kRunning);
  EXPECT_EQ(Get("queued").state, JobState::kQueued);
  EXPECT_TRUE(launcher_.started().empty()) << "nothing placed before the takeover";
  ASSERT_EQ(warnings_.size(), 1U) << "four tries, one warning";
  EXPECT_NE(warnings_[0].find("not taken over yet: the job store could not list the unfinished "
                              "jobs: sqlite: unable to open database file"),
            std::string::npos)
      << warnings_[0];

  failing_->FailLists(Status());
  clock_.Advance(std::chrono::seconds(1));
  Settle();
  const model::Job failed = Get("was_running");
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_NE(failed.error_message.find("server restarted"), std::string::npos);
  EXPECT_EQ(Get("queued").state, JobState::kRunning);
}

// The usage half of a sharing store, refusing writes while `refusal` is set.
class UsageStore final : public store::SharingStore {
 public:
  Result<store::SharingRows> Load() const override { return store::SharingRows{}; }
  Status PutQuota(std::string_view, std::string_view) override { return {}; }
  Status DeleteQuota(std::string_view) override { return {}; }
  Status PutPriorityClass(std::string_view, int) override { return {}; }
  Status DeletePriorityClass(std::string_view) override { return {}; }
  Result<store::UsageRows> LoadUsage() const override { return rows; }
  Status PutUsage(const store::UsageRows& usage) override {
    ++attempts;
    if (!refusal.ok()) {
      return refusal;
    }
    rows = usage;
    return {};
  }

  Status refusal;
  int attempts = 0;
  store::UsageRows rows;
};

TEST_F(ExecutorStoreFailureTest, TheUsageIsWrittenAtMostOnceAnIntervalAndARefusedWriteAgain) {
  UsageStore usage;
  std::vector<std::string> warnings;
  customize_ = [&](ExecutorOptions& options) {
    options.usage_store = &usage;
    options.usage_write_interval = std::chrono::seconds(60);
    options.warn = [&](std::string_view message) { warnings.emplace_back(message); };
  };
  Submit(WithGpus(ValidRuntimeJob("gpu"), 1));
  Settle();
  clock_.Advance(std::chrono::seconds(2));
  Settle();
  ASSERT_EQ(Get("gpu").state, JobState::kRunning);
  const int first = usage.attempts;
  EXPECT_EQ(first, 1) << "the first device-time counted is written";
  for (int i = 0; i < 5; ++i) {  // passes within the interval write nothing
    clock_.Advance(std::chrono::seconds(2));
    Settle();
  }
  EXPECT_EQ(usage.attempts, first);

  usage.refusal = DiskFullError("store the change in its database", "database or disk is full");
  clock_.Advance(std::chrono::seconds(60));
  Settle();
  EXPECT_EQ(usage.attempts, first + 1);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("The projects' recent use of the devices was not saved (tried again "
                             "in 60 s)"),
            std::string::npos)
      << warnings[0];
  clock_.Advance(std::chrono::seconds(2));
  Settle();
  EXPECT_EQ(usage.attempts, first + 1) << "tried again an interval later, not on every pass";

  usage.refusal = Status();
  clock_.Advance(std::chrono::seconds(60));
  Settle();
  EXPECT_EQ(usage.attempts, first + 2);
  ASSERT_EQ(usage.rows.projects.size(), 1U);
  EXPECT_EQ(usage.rows.projects[0].first, "p");
  // 1 of the 2 GPUs for the 134 s since it was placed: 67 s of the inventory, less a little
  // decay (a day halves it).
  EXPECT_NEAR(usage.rows.projects[0].second, 67.0, 0.05);
  EXPECT_EQ(usage.rows.counted_unix_ms,
            std::chrono::duration_cast<std::chrono::milliseconds>(clock_.Now().time_since_epoch())
                .count());
}

}  // namespace
}  // namespace trainyard::control
