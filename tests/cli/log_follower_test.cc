// The polling loop of `stream-logs`, against a fake server whose answers the test scripts: what
// each request asked for (filter text, page token), which entries came out, and when it ends.
// The clock is fake and a wait only advances it.
#include "cli/follow/log_follower.h"

#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/time_format.h"
#include "cli/follow/log_query.h"
#include "fakes/fake_clock.h"

namespace trainyard::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

struct ListCall {
  std::string filter;
  std::string page_token;
};

// Answers GetJob with `jobs` in turn (the last one for ever after), ListEntries with `pages` in
// turn (then empty pages), ListReplicas with `replicas`; records every call.
class ScriptedSource final : public FollowSource {
 public:
  Result<model::Job> GetJob() override {
    ++get_job_calls;
    Result<model::Job> job = jobs.front();
    if (jobs.size() > 1) {
      jobs.pop_front();
    }
    return job;
  }
  Result<LogEntriesPage> ListEntries(const std::string& filter,
                                     const std::string& page_token) override {
    list_calls.push_back({filter, page_token});
    if (pages.empty()) {
      return LogEntriesPage{};
    }
    Result<LogEntriesPage> page = std::move(pages.front());
    pages.pop_front();
    return page;
  }
  Result<std::vector<ReplicaStatus>> ListReplicas() override {
    ++replica_calls;
    return replicas;
  }

  std::deque<Result<model::Job>> jobs;
  std::deque<Result<LogEntriesPage>> pages;
  Result<std::vector<ReplicaStatus>> replicas = std::vector<ReplicaStatus>{};
  std::vector<ListCall> list_calls;
  int get_job_calls = 0;
  int replica_calls = 0;
};

ListedLogEntry Entry(std::string timestamp, std::string insert_id, std::string message) {
  return {.timestamp = std::move(timestamp),
          .insert_id = std::move(insert_id),
          .severity = "INFO",
          .task_name = "master-replica-0",
          .message = std::move(message)};
}

constexpr const char* kJobFilters =
    R"((resource.type="ml_job" OR resource.type="cloudml_job") AND resource.labels.job_id="job_1")";
constexpr const char* kStart = R"(timestamp>="1970-01-01T01:00:00.000000000Z")";

class LogFollowerTest : public ::testing::Test {
 protected:
  model::Job Running() const {
    return {.job_id = "job_1", .create_time = clock_.Now(), .state = model::JobState::kRunning};
  }
  model::Job Ended(model::JobState state = model::JobState::kSucceeded) const {
    model::Job job = Running();
    job.state = state;
    job.end_time = clock_.Now();
    return job;
  }
  // `timestamp<"…"`: the upper bound of a round started `after` the test's start.
  std::string UpperAt(std::chrono::milliseconds after) const {
    return LogUpperBound(start_ + after - std::chrono::seconds(1));
  }

  Result<FollowResult> Follow(const FollowOptions& options = {
                                  .filters = JobLogFilters("job_1", "")}) {
    const FollowHandlers handlers{
        .entry = [this](const ListedLogEntry& entry) { messages_.push_back(entry.message); },
        .progress = [this](const FollowProgress& progress) { progress_.push_back(progress); },
        .wait =
            [this](std::chrono::milliseconds duration) {
              waits_.push_back(duration);
              clock_.Advance(duration);
              return interrupt_after_ < 0 || static_cast<int>(waits_.size()) < interrupt_after_;
            },
    };
    return FollowJobLogs(source_, clock_, options, handlers);
  }

  testing::FakeClock clock_;
  WallTime start_ = clock_.Now();
  ScriptedSource source_;
  int interrupt_after_ = -1;  // the wait that reports Ctrl-C (1 = the first); -1 never
  std::vector<std::string> messages_;
  std::vector<FollowProgress> progress_;
  std::vector<std::chrono::milliseconds> waits_;
};

TEST_F(LogFollowerTest, FollowsPagesMovesTheCursorAndReadsTheRestAfterTheEnd) {
  source_.jobs = {Running(), Running(), Ended()};
  const std::string ts1 = "2026-11-21T09:35:01.000001Z";
  const std::string ts2 = "2026-11-21T09:35:02.000000Z";
  source_.pages = {
      LogEntriesPage{{Entry(ts1, "000000000001", "one"), Entry(ts1, "000000000002", "two")}, "t1"},
      LogEntriesPage{{Entry(ts2, "000000000001", "three")}, ""},
      // The next round gets the last entry again (the lower bound is >=): it is dropped.
      LogEntriesPage{{Entry(ts2, "000000000001", "three"), Entry(ts2, "000000000002", "four")}, ""},
      LogEntriesPage{{Entry("2026-11-21T09:35:03.000000Z", "000000000001", "five")}, ""},
  };

  auto result = Follow();
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->end, FollowEnd::kJobEnded);
  EXPECT_EQ(result->job.state, model::JobState::kSucceeded);
  EXPECT_THAT(messages_, ElementsAre("one", "two", "three", "four", "five"));
  const std::string j = kJobFilters;
  const auto s = [](int n) { return std::chrono::milliseconds(n * 1000); };
  ASSERT_EQ(source_.list_calls.size(), 4u);
  // Round 1: from the start to now - 1 s, both pages with the same filter.
  EXPECT_EQ(source_.list_calls[0].filter, j + " AND " + kStart + " AND " + UpperAt(s(0)));
  EXPECT_EQ(source_.list_calls[0].page_token, "");
  EXPECT_EQ(source_.list_calls[1].filter, source_.list_calls[0].filter);
  EXPECT_EQ(source_.list_calls[1].page_token, "t1");
  // Round 2, a polling interval later: from the last entry's timestamp, copied as sent.
  EXPECT_EQ(source_.list_calls[2].filter,
            j + R"( AND timestamp>="2026-11-21T09:35:02.000000Z")" + " AND " + UpperAt(s(1)));
  // Round 3: the job has ended; no upper bound, so nothing recorded late is lost.
  EXPECT_EQ(source_.list_calls[3].filter,
            j + R"( AND ((timestamp="2026-11-21T09:35:02.000000Z" AND insertId>"000000000002"))" +
                R"( OR timestamp>"2026-11-21T09:35:02.000000Z"))");
  EXPECT_THAT(waits_, ElementsAre(s(1), s(1)));
  EXPECT_EQ(progress_.size(), 3u);
  EXPECT_EQ(source_.replica_calls, 0);  // not watched
}

TEST_F(LogFollowerTest, AJobAlreadyOverIsReadInOneRoundWithoutUpperBound) {
  source_.jobs = {Ended(model::JobState::kFailed)};
  source_.pages = {LogEntriesPage{{Entry("2026-11-21T09:35:01.000001Z", "1", "last")}, ""}};
  auto result = Follow();
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->end, FollowEnd::kJobEnded);
  EXPECT_EQ(result->job.state, model::JobState::kFailed);
  EXPECT_THAT(messages_, ElementsAre("last"));
  ASSERT_EQ(source_.list_calls.size(), 1u);
  EXPECT_EQ(source_.list_calls[0].filter, std::string(kJobFilters) + " AND " + kStart);
  EXPECT_THAT(waits_, IsEmpty());
}

TEST_F(LogFollowerTest, ATaskNameAndALagShapeTheFilter) {
  source_.jobs = {Running(), Ended()};
  auto result = Follow({.filters = JobLogFilters("job_1", "worker-replica-1"),
                        .polling_interval = std::chrono::seconds(60),
                        .lag = std::chrono::seconds(5)});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(source_.list_calls.size(), 2u);
  EXPECT_EQ(source_.list_calls[0].filter,
            std::string(kJobFilters) +
                R"( AND (resource.labels.task_name="worker-replica-1" OR )"
                R"(labels.task_name="worker-replica-1") AND )" +
                kStart + " AND " + LogUpperBound(start_ - std::chrono::seconds(5)));
  EXPECT_THAT(waits_, ElementsAre(std::chrono::seconds(60)));
}

TEST_F(LogFollowerTest, AnInterruptedWaitEndsWithTheJobAsLastRead) {
  source_.jobs = {Running()};
  interrupt_after_ = 2;
  auto result = Follow();
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->end, FollowEnd::kInterrupted);
  EXPECT_EQ(result->job.state, model::JobState::kRunning);
  EXPECT_EQ(source_.get_job_calls, 2);
  EXPECT_EQ(source_.list_calls.size(), 2u);
}

TEST_F(LogFollowerTest, AnUnknownJobEndsBeforeAnyLogRequest) {
  source_.jobs = {Status::NotFound("Field: name Error: The specified job was not found.")};
  auto result = Follow();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Code::kNotFound);
  EXPECT_THAT(source_.list_calls, IsEmpty());
}

TEST_F(LogFollowerTest, AFailedLogRequestEndsTheFollow) {
  source_.jobs = {Running()};
  source_.pages = {LogEntriesPage{{Entry("2026-11-21T09:35:01.000001Z", "1", "a")}, "t"},
                   Status::Unavailable("gone")};
  auto result = Follow();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Code::kUnavailable);
  EXPECT_THAT(messages_, ElementsAre("a"));  // what came before the failure was handed on
}

TEST_F(LogFollowerTest, APageTokenRepeatedIsAnError) {
  source_.jobs = {Running()};
  source_.pages = {LogEntriesPage{{}, "same"}, LogEntriesPage{{}, "same"}};
  auto result = Follow();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Code::kInternal);
  EXPECT_THAT(result.status().message(), HasSubstr("same page token twice"));
}

TEST_F(LogFollowerTest, WatchedReplicasComeWithTheProgressOfARunningJob) {
  source_.jobs = {Running(), Ended()};
  source_.replicas =
      std::vector<ReplicaStatus>{{"master-replica-0", "RUNNING"}, {"worker-replica-0", "STARTING"}};
  auto result = Follow({.filters = JobLogFilters("job_1", ""), .watch_replicas = true});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(progress_.size(), 2u);
  EXPECT_EQ(progress_[0].replicas.size(), 2u);
  EXPECT_EQ(progress_[0].now, start_);
  EXPECT_THAT(progress_[1].replicas, IsEmpty());  // not asked once the job has ended
  EXPECT_EQ(source_.replica_calls, 1);
}

TEST_F(LogFollowerTest, AReplicaListingThatFailsOnlyLeavesTheReplicasOut) {
  source_.jobs = {Running(), Ended()};
  source_.replicas = Status::NotFound("no such endpoint");
  auto result = Follow({.filters = JobLogFilters("job_1", ""), .watch_replicas = true});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(progress_.size(), 2u);
  EXPECT_THAT(progress_[0].replicas, IsEmpty());
  EXPECT_EQ(progress_[0].job.state, model::JobState::kRunning);
}

}  // namespace
}  // namespace trainyard::cli
