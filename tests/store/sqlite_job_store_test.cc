#include "store/sqlite_job_store.h"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"
#include "model/job.h"
#include "support/sample_jobs.h"

namespace trainyard::store {
namespace {

using model::JobState;
using trainyard::testing::TempDir;

constexpr std::string_view kEtag1 = "AAAAAAAAAAE=";
constexpr std::string_view kEtag2 = "AAAAAAAAAAI=";

WallTime At(std::int64_t seconds) {
  return WallTime(std::chrono::seconds(seconds));
}

model::Job MakeJob(std::string id, std::int64_t created, JobState state = JobState::kQueued) {
  model::Job job;
  job.job_id = std::move(id);
  job.create_time = At(created);
  job.state = state;
  job.etag = kEtag1;
  job.labels = {{"team", "vision"}};
  model::TrainingInput input;
  input.region = "us-central1";
  input.python_module = "trainer.task";
  input.package_uris = {"gs://bucket/trainer.tar.gz"};
  job.training_input = input;
  return job;
}

class SqliteJobStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }

  void Reopen() {
    store_.reset();
    Result<std::unique_ptr<JobStore>> opened = OpenSqliteJobStore(dir_.File("trainyard.db"));
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
  }

  // Lists all of `project` in pages of `limit`, checking that only the last page lacks `next`.
  std::vector<std::string> ListAll(std::string_view project, int limit) {
    std::vector<std::string> ids;
    std::optional<ListCursor> cursor;
    do {
      Result<JobPage> page = store_->List(project, cursor, limit);
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) {
        break;
      }
      for (const std::string& id : testing::JobIds(page->jobs)) {
        ids.push_back(id);
      }
      cursor = page->next;
    } while (cursor.has_value());
    return ids;
  }

  TempDir dir_;
  std::unique_ptr<JobStore> store_;
};

TEST_F(SqliteJobStoreTest, GetReturnsTheCreatedJob) {
  const model::Job job = MakeJob("job_1", 100);
  ASSERT_TRUE(store_->Create("proj", job).ok());

  Result<model::Job> got = store_->Get("proj", "job_1");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, job);
}

TEST_F(SqliteJobStoreTest, GetOfUnknownJobIsNotFound) {
  ASSERT_TRUE(store_->Create("proj", MakeJob("job_1", 100)).ok());

  EXPECT_EQ(store_->Get("proj", "job_2").status().code(), Code::kNotFound);
  EXPECT_EQ(store_->Get("other", "job_1").status().code(), Code::kNotFound);
}

TEST_F(SqliteJobStoreTest, CreatingATakenIdIsAlreadyExistsAndKeepsTheFirstJob) {
  ASSERT_TRUE(store_->Create("proj", MakeJob("job_1", 100)).ok());

  const Status again = store_->Create("proj", MakeJob("job_1", 200, JobState::kSucceeded)).status();
  EXPECT_EQ(again.code(), Code::kAlreadyExists) << again.ToString();
  EXPECT_EQ(store_->Get("proj", "job_1")->create_time, At(100));
}

TEST_F(SqliteJobStoreTest, TheSameIdInAnotherProjectIsAnotherJob) {
  ASSERT_TRUE(store_->Create("proj_a", MakeJob("job_1", 100)).ok());
  ASSERT_TRUE(store_->Create("proj_b", MakeJob("job_1", 200)).ok());

  EXPECT_EQ(store_->Get("proj_a", "job_1")->create_time, At(100));
  EXPECT_EQ(store_->Get("proj_b", "job_1")->create_time, At(200));
}

TEST_F(SqliteJobStoreTest, StoresHostileTextVerbatim) {
  const std::string project = "p'; DROP TABLE jobs; --";
  model::Job job = MakeJob("job_1", 100);
  job.error_message = std::string("quote ' \" nul \0 end", 19);
  ASSERT_TRUE(store_->Create(project, job).ok());

  EXPECT_EQ(*store_->Get(project, "job_1"), job);
  EXPECT_EQ(store_->Get("p", "job_1").status().code(), Code::kNotFound);
}

TEST_F(SqliteJobStoreTest, UpdateWithTheCurrentEtagReplacesTheJob) {
  ASSERT_TRUE(store_->Create("proj", MakeJob("job_1", 100)).ok());
  model::Job running = MakeJob("job_1", 100, JobState::kRunning);
  running.etag = kEtag2;
  running.start_time = At(150);

  ASSERT_TRUE(store_->Update("proj", running, kEtag1).ok());
  EXPECT_EQ(*store_->Get("proj", "job_1"), running);
}

// The revision Update answers is the write's: past the one before it, the store's newest after
// it, and the one the job is read back with (a Kubernetes object's resourceVersion).
TEST_F(SqliteJobStoreTest, UpdateReturnsTheRevisionItWrote) {
  ASSERT_TRUE(store_->Create("proj", MakeJob("job_1", 100)).ok());
  ASSERT_TRUE(store_->Create("proj", MakeJob("job_2", 200)).ok());
  const std::int64_t before = *store_->Revision();
  model::Job running = MakeJob("job_1", 100, JobState::kRunning);
  running.etag = kEtag2;

  Result<std::int64_t> written = store_->Update("proj", running, kEtag1);

  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_GT(*written, before);
  EXPECT_EQ(*written, *store_->Revision());
  Result<RevisionedJob> read = store_->GetRevisioned("proj", "job_1");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->revision, *written);
  EXPECT_EQ(read->project, "proj");
  EXPECT_EQ(read->job, running);
  EXPECT_LT(store_->GetRevisioned("proj", "job_2")->revision, *written);
  EXPECT_EQ(store_->GetRevisioned("proj", "job_3").status().code(), Code::kNotFound);
}

TEST_F(SqliteJobStoreTest, UpdateWithAStaleEtagIsAbortedAndChangesNothing) {
  ASSERT_TRUE(store_->Create("proj", MakeJob("job_1", 100)).ok());
  model::Job changed = MakeJob("job_1", 100, JobState::kRunning);
  changed.etag = kEtag2;

  EXPECT_EQ(store_->Update("proj", changed, kEtag2).status().code(), Code::kAborted);
  EXPECT_EQ(store_->Get("proj", "job_1")->state, JobState::kQueued);
}

TEST_F(SqliteJobStoreTest, UpdateOfUnknownJobIsNotFound) {
  EXPECT_EQ(store_->Update("proj", MakeJob("job_1", 100), kEtag1).status().code(), Code::kNotFound);
}

TEST_F(SqliteJobStoreTest, ConcurrentUpdatesWithOneEtagLetExactlyOneWin) {
  ASSERT_TRUE(store_->Create("proj", MakeJob("job_1", 100)).ok());
  std::vector<Status> results(8);
  {
    std::vector<std::jthread> threads;
    threads.reserve(results.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
      threads.emplace_back([&, i] {
        model::Job job = MakeJob("job_1", 100, JobState::kRunning);
        job.etag = kEtag2;
        job.error_message = std::to_string(i);
        results[i] = store_->Update("proj", job, kEtag1).status();
      });
    }
  }
  int won = 0;
  for (const Status& status : results) {
    EXPECT_TRUE(status.ok() || status.code() == Code::kAborted) << status.ToString();
    won += status.ok() ? 1 : 0;
  }
  EXPECT_EQ(won, 1);
}

TEST_F(SqliteJobStoreTest, ListsNewestFirstWithTiesByJobId) {
  ASSERT_TRUE(store_->Create("proj", MakeJob("old", 100)).ok());
  ASSERT_TRUE(store_->Create("proj", MakeJob("tie_b", 200)).ok());
  ASSERT_TRUE(store_->Create("proj", MakeJob("tie_a", 200)).ok());
  ASSERT_TRUE(store_->Create("proj", MakeJob("new", 300)).ok());
  ASSERT_TRUE(store_->Create("other", MakeJob("elsewhere", 250)).ok());

  Result<JobPage> page = store_->List("proj", std::nullopt, 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(testing::JobIds(page->jobs),
            (std::vector<std::string>{"new", "tie_a", "tie_b", "old"}));
  EXPECT_FALSE(page->next.has_value());
}

TEST_F(SqliteJobStoreTest, CursorsWalkEveryJobOnceAcrossTies) {
  std::vector<std::string> expected;
  for (int i = 0; i < 25; ++i) {
    const std::string id = "job_" + std::to_string(100 + i);
    ASSERT_TRUE(store_->Create("proj", MakeJob(id, 1000 - i / 4)).ok());  // groups of 4 ties
    expected.push_back(id);
  }

  EXPECT_EQ(ListAll("proj", 3), expected);
  EXPECT_EQ(ListAll("proj", 5), expected);  // the last page is exactly full: no empty page after
  EXPECT_EQ(ListAll("proj", 25), expected);
}

TEST_F(SqliteJobStoreTest, ACursorIsStableWhileJobsAreCreated) {
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(store_->Create("proj", MakeJob("job_" + std::to_string(i), 100 + i)).ok());
  }
  Result<JobPage> first = store_->List("proj", std::nullopt, 3);
  ASSERT_TRUE(first.ok() && first->next.has_value());
  ASSERT_TRUE(store_->Create("proj", MakeJob("newer", 500)).ok());

  Result<JobPage> second = store_->List("proj", first->next, 3);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(testing::JobIds(second->jobs), (std::vector<std::string>{"job_2", "job_1", "job_0"}));
  EXPECT_FALSE(second->next.has_value());
}

TEST_F(SqliteJobStoreTest, ListOfAnEmptyProjectHasNoJobsAndNoNext) {
  Result<JobPage> page = store_->List("proj", std::nullopt, 10);
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->jobs.empty());
  EXPECT_FALSE(page->next.has_value());
}

TEST_F(SqliteJobStoreTest, ListRejectsALimitOutOfRange) {
  EXPECT_EQ(store_->List("proj", std::nullopt, 0).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store_->List("proj", std::nullopt, 1001).status().code(), Code::kInvalidArgument);
}

TEST_F(SqliteJobStoreTest, ListUnfinishedReturnsNonTerminalJobsOfEveryProject) {
  ASSERT_TRUE(store_->Create("a", MakeJob("queued", 100, JobState::kQueued)).ok());
  ASSERT_TRUE(store_->Create("b", MakeJob("running", 200, JobState::kRunning)).ok());
  ASSERT_TRUE(store_->Create("a", MakeJob("cancelling", 300, JobState::kCancelling)).ok());
  ASSERT_TRUE(store_->Create("a", MakeJob("done", 400, JobState::kSucceeded)).ok());
  ASSERT_TRUE(store_->Create("b", MakeJob("failed", 500, JobState::kFailed)).ok());
  ASSERT_TRUE(store_->Create("b", MakeJob("cancelled", 600, JobState::kCancelled)).ok());

  auto unfinished = store_->ListUnfinished();
  ASSERT_TRUE(unfinished.ok()) << unfinished.status().ToString();
  std::vector<std::string> names;
  for (const auto& [project, job] : *unfinished) {
    names.push_back(project + "/" + job.job_id);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a/queued", "b/running", "a/cancelling"}));
}

// ListUnfinished keeps what it decoded for the next pass; every write must still show.
TEST_F(SqliteJobStoreTest, ListUnfinishedSeesEveryWriteBetweenCalls) {
  ASSERT_TRUE(store_->Create("a", MakeJob("one", 100)).ok());
  ASSERT_TRUE(store_->Create("a", MakeJob("two", 200)).ok());
  auto listed = [&] {
    auto unfinished = store_->ListUnfinished();
    EXPECT_TRUE(unfinished.ok()) << unfinished.status().ToString();
    std::vector<model::Job> jobs;
    for (const auto& [project, job] : *unfinished) {
      EXPECT_EQ(job, *store_->Get(project, job.job_id)) << job.job_id;  // as stored now
      jobs.push_back(job);
    }
    return jobs;
  };
  ASSERT_EQ(listed().size(), 2U);
  ASSERT_EQ(listed().size(), 2U);  // the second pass from what the first decoded

  model::Job one = *store_->Get("a", "one");
  const std::string etag = one.etag;
  one.state = JobState::kRunning;
  one.labels["step"] = "2";
  one.etag = kEtag2;
  ASSERT_TRUE(store_->Update("a", one, etag).ok());
  std::vector<model::Job> jobs = listed();
  ASSERT_EQ(jobs.size(), 2U);
  EXPECT_EQ(jobs[0].state, JobState::kRunning);
  EXPECT_EQ(jobs[0].labels.at("step"), "2");

  model::Job two = *store_->Get("a", "two");
  const std::string two_etag = two.etag;
  two.state = JobState::kSucceeded;
  two.etag = kEtag2;
  ASSERT_TRUE(store_->Update("a", two, two_etag).ok());
  jobs = listed();
  ASSERT_EQ(jobs.size(), 1U);
  EXPECT_EQ(jobs[0].job_id, "one");
}

TEST_F(SqliteJobStoreTest, CountByStateCountsEveryProject) {
  ASSERT_TRUE(store_->Create("a", MakeJob("j1", 100, JobState::kQueued)).ok());
  ASSERT_TRUE(store_->Create("b", MakeJob("j1", 100, JobState::kQueued)).ok());
  ASSERT_TRUE(store_->Create("a", MakeJob("j2", 100, JobState::kFailed)).ok());

  auto counts = store_->CountByState();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(*counts, (std::vector<std::pair<JobState, std::int64_t>>{{JobState::kQueued, 2},
                                                                     {JobState::kFailed, 1}}));
}

TEST_F(SqliteJobStoreTest, ProjectsAreThoseHoldingAJobOfAnyState) {
  EXPECT_EQ(*store_->Projects(), std::vector<std::string>{});
  ASSERT_TRUE(store_->Create("b", MakeJob("j1", 100, JobState::kSucceeded)).ok());
  ASSERT_TRUE(store_->Create("a", MakeJob("j1", 100, JobState::kQueued)).ok());
  ASSERT_TRUE(store_->Create("a", MakeJob("j2", 100, JobState::kFailed)).ok());
  EXPECT_EQ(*store_->Projects(), (std::vector<std::string>{"a", "b"}));
}

TEST_F(SqliteJobStoreTest, ReopeningKeepsEveryJobAndUpdate) {
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(store_->Create("proj", MakeJob("job_" + std::to_string(i), 100 + i)).ok());
  }
  model::Job updated = MakeJob("job_7", 107, JobState::kRunning);
  updated.etag = kEtag2;
  ASSERT_TRUE(store_->Update("proj", updated, kEtag1).ok());

  Reopen();

  EXPECT_EQ(ListAll("proj", 100).size(), 50U);
  EXPECT_EQ(*store_->Get("proj", "job_7"), updated);
  EXPECT_EQ(store_->Create("proj", MakeJob("job_3", 1)).status().code(), Code::kAlreadyExists);
}

TEST_F(SqliteJobStoreTest, ConcurrentCreatesAreAllStored) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50;
  {
    std::vector<std::jthread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          const std::string id = "job_" + std::to_string(t) + "_" + std::to_string(i);
          EXPECT_TRUE(store_->Create("proj", MakeJob(id, i)).ok());
          EXPECT_TRUE(store_->Get("proj", id).ok());
        }
      });
    }
  }
  EXPECT_EQ(ListAll("proj", 1000).size(), static_cast<std::size_t>(kThreads * kPerThread));
}

TEST(OpenSqliteJobStore, FailsWhenTheDirectoryIsMissing) {
  TempDir dir;
  Result<std::unique_ptr<JobStore>> opened = OpenSqliteJobStore(dir.File("missing/trainyard.db"));
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), Code::kUnavailable) << opened.status().ToString();
}

}  // namespace
}  // namespace trainyard::store
