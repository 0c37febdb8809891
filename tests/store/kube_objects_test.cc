// The Kubernetes side of the job store: revisions (resourceVersion), one live object per name,
// and the listing a watch reads, deletions included.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"
#include "model/job.h"
#include "store/sqlite_job_store.h"

namespace trainyard::store {
namespace {

model::Job KubeJob(const std::string& job_id, const std::string& name) {
  model::Job job;
  job.job_id = job_id;
  job.create_time = WallTime(std::chrono::seconds(1000));
  job.state = model::JobState::kQueued;
  job.etag = "ZTA=";
  model::JobExtras extras;
  extras.kube = model::KubeObject{.kind = "TFJob",
                                  .api_version = "kubeflow.org/v1",
                                  .name = name,
                                  .namespace_name = "team-a",
                                  .uid = "u-" + job_id,
                                  .document = "{}"};
  job.extras = std::move(extras);
  return job;
}

class KubeObjectsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<JobStore>> opened = OpenSqliteJobStore(dir_.File("trainyard.db"));
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
  }

  std::int64_t Revision() {
    Result<std::int64_t> revision = store_->Revision();
    EXPECT_TRUE(revision.ok());
    return revision.ok() ? *revision : -1;
  }

  std::vector<std::string> Changed(std::int64_t after, bool live_only, std::string project = "") {
    Result<std::vector<RevisionedJob>> jobs =
        store_->ListKubeObjects(project, "TFJob", after, live_only, 100);
    EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
    std::vector<std::string> ids;
    if (!jobs.ok()) {
      return ids;
    }
    for (const RevisionedJob& job : *jobs) {
      ids.push_back(job.project + "/" + job.job.job_id);
    }
    return ids;
  }

  testing::TempDir dir_;
  std::unique_ptr<JobStore> store_;
};

TEST_F(KubeObjectsTest, EveryWriteTakesTheNextRevision) {
  EXPECT_EQ(Revision(), 0);
  Result<CreatedJob> first = store_->Create("team-a", KubeJob("a", "a"));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->revision, 1);  // what Create answers is the revision it wrote
  EXPECT_EQ(Revision(), 1);
  model::Job plain;
  plain.job_id = "plain";
  plain.create_time = WallTime(std::chrono::seconds(1));
  plain.etag = "cA==";
  Result<CreatedJob> second = store_->Create("team-a", plain);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->revision, 2);
  EXPECT_EQ(Revision(), 2);
  model::Job changed = KubeJob("a", "a");
  changed.etag = "ZTE=";
  ASSERT_TRUE(store_->Update("team-a", changed, "ZTA=").ok());
  EXPECT_EQ(Revision(), 3);
  Result<RevisionedJob> got = store_->GetKubeObject("team-a", "TFJob", "a");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->revision, 3);
  EXPECT_EQ(got->job.etag, "ZTE=");
}

TEST_F(KubeObjectsTest, ANameHasOneLiveObjectPerProject) {
  ASSERT_TRUE(store_->Create("team-a", KubeJob("mnist", "mnist")).ok());
  const std::int64_t before = Revision();
  const Status second = store_->Create("team-a", KubeJob("mnist_2", "mnist")).status();
  EXPECT_EQ(second.code(), Code::kAlreadyExists) << second.ToString();
  EXPECT_EQ(Revision(), before);  // a refused insert takes no revision
  EXPECT_TRUE(store_->Create("team-b", KubeJob("mnist", "mnist")).ok());
  EXPECT_EQ(store_->GetKubeObject("team-a", "TFJob", "other").status().code(), Code::kNotFound);
  EXPECT_EQ(store_->GetKubeObject("team-a", "PyTorchJob", "mnist").status().code(),
            Code::kNotFound);
}

TEST_F(KubeObjectsTest, ADeletedObjectLeavesTheApiOnceItsJobHasEnded) {
  model::Job job = KubeJob("mnist", "mnist");
  ASSERT_TRUE(store_->Create("team-a", job).ok());
  const std::int64_t created = Revision();

  // Deleted while it runs: still in the API (its replicas are being stopped).
  model::Job deleting = job;
  deleting.state = model::JobState::kCancelling;
  deleting.extras->kube->deletion_time = WallTime(std::chrono::seconds(2000));
  deleting.etag = "ZTE=";
  ASSERT_TRUE(store_->Update("team-a", deleting, "ZTA=").ok());
  EXPECT_TRUE(store_->GetKubeObject("team-a", "TFJob", "mnist").ok());
  EXPECT_EQ(Changed(created, /*live_only=*/true), std::vector<std::string>{"team-a/mnist"});

  model::Job gone = deleting;
  gone.state = model::JobState::kCancelled;
  gone.etag = "ZTI=";
  ASSERT_TRUE(store_->Update("team-a", gone, "ZTE=").ok());
  EXPECT_EQ(store_->GetKubeObject("team-a", "TFJob", "mnist").status().code(), Code::kNotFound);
  // A watch still sees the change (its DELETED event); a list does not.
  EXPECT_EQ(Changed(created, /*live_only=*/false), std::vector<std::string>{"team-a/mnist"});
  EXPECT_TRUE(Changed(0, /*live_only=*/true).empty());

  // The name is free again: a new object under another job id.
  EXPECT_TRUE(store_->Create("team-a", KubeJob("mnist_2", "mnist")).ok());
  Result<RevisionedJob> again = store_->GetKubeObject("team-a", "TFJob", "mnist");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->job.job_id, "mnist_2");
}

TEST_F(KubeObjectsTest, ListsChangesOldestFirstByProject) {
  ASSERT_TRUE(store_->Create("team-a", KubeJob("a", "a")).ok());
  ASSERT_TRUE(store_->Create("team-b", KubeJob("b", "b")).ok());
  ASSERT_TRUE(store_->Create("team-a", KubeJob("c", "c")).ok());
  model::Job a = KubeJob("a", "a");
  a.etag = "ZTE=";
  ASSERT_TRUE(store_->Update("team-a", a, "ZTA=").ok());
  EXPECT_EQ(Changed(0, true), (std::vector<std::string>{"team-b/b", "team-a/c", "team-a/a"}));
  EXPECT_EQ(Changed(0, true, "team-a"), (std::vector<std::string>{"team-a/c", "team-a/a"}));
  EXPECT_EQ(Changed(3, true), (std::vector<std::string>{"team-a/a"}));
  EXPECT_TRUE(Changed(4, true).empty());
}

}  // namespace
}  // namespace trainyard::store
