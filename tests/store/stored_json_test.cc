// The job store's ml v1 JSON (GetJson, ListJson): after every kind of write it is byte for byte a
// fresh `EncodeJob` of the stored job, and a database written before schema v3 (ml v1 JSON and
// extras in one `body`) upgrades to it without changing any job.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"
#include "model/json_codec.h"
#include "store/migrations.h"
#include "store/sqlite_connection.h"
#include "store/sqlite_job_store.h"

namespace trainyard::store {
namespace {

using model::JobState;
using trainyard::testing::TempDir;

model::Job PlainJob(std::string id, std::int64_t created_s) {
  model::Job job;
  job.job_id = std::move(id);
  job.create_time = WallTime(std::chrono::seconds(created_s));
  job.state = JobState::kQueued;
  job.etag = "AAAAAAAAAAE=";
  job.labels = {{"team", "vision"}, {"note", "é \"quoted\" \\ \u0001"}};
  model::TrainingInput input;
  input.region = "us-central1";
  input.python_module = "trainer.task";
  input.package_uris = {"gs://bucket/trainer.tar.gz"};
  input.args = {"--epochs=2", "tab\there"};
  job.training_input = input;
  return job;
}

model::Job TfJob(std::string id, std::int64_t created_s) {
  model::Job job = PlainJob(std::move(id), created_s);
  model::JobExtras extras;
  extras.master.env = {{"A", "1"}};
  extras.worker.restart = model::RestartRule::kOnFailure;
  extras.kube = model::KubeObject{.kind = "TFJob",
                                  .api_version = "kubeflow.org/v1",
                                  .name = job.job_id,
                                  .namespace_name = "default",
                                  .uid = "5c0f",
                                  .document = R"({"metadata":{"name":"x"}})",
                                  .generation = 1};
  job.extras = std::move(extras);
  return job;
}

class StoredJsonTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }

  void Reopen() {
    store_.reset();
    Result<std::unique_ptr<JobStore>> opened = OpenSqliteJobStore(dir_.File("trainyard.db"));
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
  }

  // GetJson equals EncodeJob of Get, and Get equals `expected`.
  void ExpectStoredAsEncoded(const model::Job& expected) {
    Result<model::Job> job = store_->Get("proj", expected.job_id);
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    EXPECT_EQ(*job, expected);
    Result<std::string> json = store_->GetJson("proj", expected.job_id);
    ASSERT_TRUE(json.ok()) << json.status().ToString();
    EXPECT_EQ(*json, model::EncodeJob(expected));
  }

  // Writes `next` over the stored job `current` (compare-and-swap on its etag).
  void Update(model::Job& current, model::Job next) {
    next.etag = current.etag == "AAAAAAAAAAE=" ? "AAAAAAAAAAI=" : "AAAAAAAAAAE=";
    ASSERT_TRUE(store_->Update("proj", next, current.etag).ok());
    current = std::move(next);
  }

  TempDir dir_;
  std::unique_ptr<JobStore> store_;
};

TEST_F(StoredJsonTest, EveryKindOfWriteLeavesAFreshEncoding) {
  for (model::Job job : {PlainJob("plain", 10), TfJob("tfjob", 11)}) {
    SCOPED_TRACE(job.job_id);
    Result<CreatedJob> created = store_->Create("proj", job);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    EXPECT_EQ(created->json, model::EncodeJob(job));
    ExpectStoredAsEncoded(job);

    model::Job next = job;  // the executor's state changes
    next.state = JobState::kRunning;
    next.start_time = WallTime(std::chrono::seconds(20));
    next.job_position = 0;
    Update(job, next);
    ExpectStoredAsEncoded(job);

    next = job;  // a label patch
    next.labels = {{"team", "speech"}};
    Update(job, next);
    ExpectStoredAsEncoded(job);

    next = job;  // extras added, changed, then dropped
    next.extras = model::JobExtras{};
    next.extras->suspended = true;
    Update(job, next);
    ExpectStoredAsEncoded(job);
    next = job;
    next.extras.reset();
    Update(job, next);
    ExpectStoredAsEncoded(job);

    next = job;  // cancel
    next.state = JobState::kCancelled;
    next.end_time = WallTime(std::chrono::seconds(30));
    next.error_message = "Job was cancelled by the user.";
    Update(job, next);
    ExpectStoredAsEncoded(job);

    Reopen();
    ExpectStoredAsEncoded(job);
  }
}

TEST_F(StoredJsonTest, GetJsonOfAnUnknownJobIsNotFound) {
  EXPECT_EQ(store_->GetJson("proj", "nope").status().code(), Code::kNotFound);
}

TEST_F(StoredJsonTest, ListJsonIsListEncodedWithTheSameCursors) {
  std::vector<model::Job> jobs;
  for (int i = 0; i < 7; ++i) {
    // Two jobs per second: cursors must break ties the same way.
    model::Job job = i % 3 == 0 ? TfJob("j" + std::to_string(i), i / 2)
                                : PlainJob("j" + std::to_string(i), i / 2);
    ASSERT_TRUE(store_->Create("proj", job).ok());
  }
  std::optional<ListCursor> cursor;
  int pages = 0;
  do {
    Result<JobPage> page = store_->List("proj", cursor, 3);
    Result<JsonPage> json = store_->ListJson("proj", cursor, 3);
    ASSERT_TRUE(page.ok() && json.ok());
    ASSERT_EQ(json->jobs.size(), page->jobs.size());
    for (std::size_t i = 0; i < page->jobs.size(); ++i) {
      EXPECT_EQ(json->jobs[i], model::EncodeJob(page->jobs[i]));
    }
    ASSERT_EQ(json->next.has_value(), page->next.has_value());
    if (page->next.has_value()) {
      EXPECT_EQ(json->next->create_time, page->next->create_time);
      EXPECT_EQ(json->next->job_id, page->next->job_id);
    }
    cursor = page->next;
    ++pages;
  } while (cursor.has_value());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(store_->ListJson("proj", std::nullopt, 0).status().code(), Code::kInvalidArgument);
}

// A database as trainyard wrote it at schema v2: each job's ml v1 JSON and extras in `body`.
TEST(StoredJsonMigrationTest, AVersionTwoDatabaseUpgradesWithEveryJobUnchanged) {
  TempDir dir;
  const std::string path = dir.File("trainyard.db");
  const std::vector<model::Job> jobs = {PlainJob("plain", 1), TfJob("tfjob", 2)};
  {
    Result<std::unique_ptr<internal::Connection>> db = internal::Connection::Open(path, false);
    ASSERT_TRUE(db.ok());
    const std::span<const internal::Migration> all = internal::Migrations();
    ASSERT_GE(all.size(), 3U);
    ASSERT_TRUE(internal::ApplyMigrations(**db, all.first(2)).ok());
    std::int64_t revision = 0;
    for (const model::Job& job : jobs) {
      Result<internal::Statement> insert = (*db)->Prepare(
          "INSERT INTO jobs (project, job_id, create_time_ns, state, etag, body, kube_kind, "
          "kube_name, revision) VALUES ('proj', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
      ASSERT_TRUE(insert.ok());
      insert->Bind(1, job.job_id);
      insert->Bind(2, std::chrono::duration_cast<std::chrono::nanoseconds>(
                          job.create_time->time_since_epoch())
                          .count());
      insert->Bind(3, std::int64_t{static_cast<int>(job.state)});
      insert->Bind(4, job.etag);
      insert->Bind(5, model::EncodeStoredJob(job));
      if (job.extras.has_value()) {
        insert->Bind(6, job.extras->kube->kind);
        insert->Bind(7, job.extras->kube->name);
      }
      insert->Bind(8, ++revision);
      ASSERT_TRUE(insert->Run().ok());
    }
    ASSERT_EQ(*internal::SchemaVersion(**db), 2);
  }

  Result<std::unique_ptr<JobStore>> store = OpenSqliteJobStore(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  for (const model::Job& job : jobs) {
    SCOPED_TRACE(job.job_id);
    Result<model::Job> got = (*store)->Get("proj", job.job_id);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, job);
    Result<std::string> json = (*store)->GetJson("proj", job.job_id);
    ASSERT_TRUE(json.ok());
    EXPECT_EQ(*json, model::EncodeJob(job));
  }
  Result<RevisionedJob> kube = (*store)->GetKubeObject("proj", "TFJob", "tfjob");
  ASSERT_TRUE(kube.ok()) << kube.status().ToString();
  EXPECT_EQ(kube->job, jobs[1]);
}

}  // namespace
}  // namespace trainyard::store
