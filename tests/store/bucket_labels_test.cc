// A bucket's changeable metadata (buckets.patch, issue #36): the merge of a PATCH's map members
// (`ApplyKeyChanges`, shared with objects' user metadata), the store's compare-and-swap of a
// bucket's labels with its metageneration, kept across a restart and added to older databases,
// and a delete's metageneration preconditions, which the store checks with the removal.
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include "fakes/temp_dir.h"
#include "store/bucket_store.h"
#include "store/preconditions.h"
#include "store/rewind_storage_db.h"

namespace trainyard::store {
namespace {

using Map = std::map<std::string, std::string>;
using trainyard::testing::FakeClock;
using trainyard::testing::TempDir;

struct MergeCase {
  std::string name;
  Map current;
  KeyChanges changes;
  Map expected;
};

class ApplyKeyChangesTest : public ::testing::TestWithParam<MergeCase> {};

TEST_P(ApplyKeyChangesTest, MergesAsGcsPatchDoes) {
  const MergeCase& tc = GetParam();
  EXPECT_EQ(ApplyKeyChanges(tc.current, tc.changes), tc.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ApplyKeyChangesTest,
    ::testing::Values(
        MergeCase{"NothingKeepsAll", {{"a", "1"}}, {}, {{"a", "1"}}},
        MergeCase{"AddsAKey", {{"a", "1"}}, {.keys = {{"b", "2"}}}, {{"a", "1"}, {"b", "2"}}},
        MergeCase{"ReplacesAValue", {{"a", "1"}}, {.keys = {{"a", "9"}}}, {{"a", "9"}}},
        MergeCase{"NullRemovesAKey",
                  {{"a", "1"}, {"b", "2"}},
                  {.keys = {{"a", std::nullopt}}},
                  {{"b", "2"}}},
        MergeCase{"NullOfAMissingKeyIsNoError",
                  {{"a", "1"}},
                  {.keys = {{"z", std::nullopt}}},
                  {{"a", "1"}}},
        MergeCase{"EmptyValueIsKept", {}, {.keys = {{"a", ""}}}, {{"a", ""}}},
        MergeCase{"ClearDropsAll", {{"a", "1"}, {"b", "2"}}, {.clear = true}, {}},
        MergeCase{"ClearThenSet",
                  {{"a", "1"}, {"b", "2"}},
                  {.clear = true, .keys = {{"c", "3"}, {"a", std::nullopt}}},
                  {{"c", "3"}}},
        MergeCase{"SetAndRemoveTogether",
                  {{"a", "1"}, {"b", "2"}},
                  {.keys = {{"a", std::nullopt}, {"b", "3"}, {"c", "4"}}},
                  {{"b", "3"}, {"c", "4"}}}),
    [](const auto& tc) { return tc.param.name; });

class BucketLabelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Reopen();
    auto bucket = store_->CreateBucket("proj", "bkt");
    ASSERT_TRUE(bucket.ok()) << bucket.status().ToString();
    EXPECT_EQ(bucket->metageneration, 1);
    EXPECT_TRUE(bucket->labels.empty());
    EXPECT_EQ(bucket->updated, bucket->create_time);
  }

  void Reopen() {
    store_.reset();
    auto store = OpenFileBucketStore(dir_.File("buckets"), dir_.File("storage.db"), clock_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *std::move(store);
  }

  TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<BucketStore> store_;
};

TEST_F(BucketLabelsTest, AnUpdateRaisesTheMetagenerationAndSurvivesARestart) {
  const WallTime created = store_->GetBucket("bkt")->create_time;
  clock_.Advance(std::chrono::seconds(3));
  auto updated =
      store_->UpdateBucket("bkt", {{"team", "ml"}}, {{"cors", R"([{"origin":["*"]}])"}}, 1);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->metageneration, 2);
  EXPECT_EQ(updated->labels, (Map{{"team", "ml"}}));
  EXPECT_EQ(updated->settings, (Map{{"cors", R"([{"origin":["*"]}])"}}));
  EXPECT_EQ(updated->create_time, created);
  EXPECT_EQ(updated->updated, created + std::chrono::seconds(3));
  Reopen();
  auto got = store_->GetBucket("bkt");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->metageneration, 2);
  EXPECT_EQ(got->labels, updated->labels);
  EXPECT_EQ(got->settings, updated->settings);
  EXPECT_EQ(got->updated, updated->updated);
  EXPECT_EQ(store_->ListBuckets("proj")->at(0).labels, updated->labels);
}

TEST_F(BucketLabelsTest, AStaleMetagenerationIsAbortedAndChangesNothing) {
  ASSERT_TRUE(store_->UpdateBucket("bkt", {{"a", "1"}}, {}, 1).ok());
  auto stale = store_->UpdateBucket("bkt", {{"b", "2"}}, {{"website", "{}"}}, 1);
  EXPECT_EQ(stale.status().code(), Code::kAborted);
  EXPECT_EQ(store_->GetBucket("bkt")->labels, (Map{{"a", "1"}}));
  EXPECT_TRUE(store_->GetBucket("bkt")->settings.empty());
  EXPECT_EQ(store_->GetBucket("bkt")->metageneration, 2);
  EXPECT_EQ(store_->UpdateBucket("none", {}, {}, 1).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->UpdateBucket("Bad Name", {}, {}, 1).status().code(), Code::kInvalidArgument);
}

TEST_F(BucketLabelsTest, ProjectsAreThoseHoldingABucket) {
  ASSERT_TRUE(store_->CreateBucket("alpha", "bkt-2").ok());
  ASSERT_TRUE(store_->CreateBucket("proj", "bkt-3").ok());
  EXPECT_EQ(*store_->BucketProjects(), (std::vector<std::string>{"alpha", "proj"}));
}

TEST_F(BucketLabelsTest, BucketsOfAVersion3DatabaseHaveNoLabelsAtMetageneration1) {
  const WallTime created = store_->GetBucket("bkt")->create_time;
  store_.reset();
  RewindStorageDb(dir_.File("storage.db"), 3);
  Reopen();
  auto got = store_->GetBucket("bkt");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->metageneration, 1);
  EXPECT_TRUE(got->labels.empty());
  EXPECT_EQ(got->updated, created);
}

struct DeleteCase {
  std::string name;
  Preconditions conditions;
  bool holds_object = false;
  bool deleted = false;
  bool condition_not_met = false;  // else, when not deleted: not empty
};

class BucketDeleteTest : public BucketLabelsTest,
                         public ::testing::WithParamInterface<DeleteCase> {};

// The bucket is at metageneration 2 when the delete comes: a change landed after the client read
// metageneration 1.
TEST_P(BucketDeleteTest, ChecksTheMetagenerationWithTheRemoval) {
  const DeleteCase& tc = GetParam();
  ASSERT_TRUE(store_->UpdateBucket("bkt", {{"a", "1"}}, {}, 1).ok());
  if (tc.holds_object) {
    ASSERT_TRUE(store_->PutObject("bkt", "obj", "data", "text/plain", {}, {}, {}).ok());
  }
  const Status status = store_->DeleteBucket("bkt", tc.conditions);
  EXPECT_EQ(status.ok(), tc.deleted) << status.ToString();
  EXPECT_EQ(IsConditionNotMet(status), tc.condition_not_met) << status.ToString();
  if (tc.deleted) {
    EXPECT_EQ(store_->GetBucket("bkt").status().code(), Code::kNotFound);
    return;
  }
  EXPECT_EQ(status.code(), Code::kFailedPrecondition);
  auto bucket = store_->GetBucket("bkt");  // still there, as it was
  ASSERT_TRUE(bucket.ok()) << bucket.status().ToString();
  EXPECT_EQ(bucket->metageneration, 2);
  EXPECT_EQ(bucket->labels, (Map{{"a", "1"}}));
  if (tc.holds_object) {
    EXPECT_TRUE(store_->GetObject("bkt", "obj").ok());
  }
  EXPECT_TRUE(store_->PutObject("bkt", "after", "x", "text/plain", {}, {}, {}).ok());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BucketDeleteTest,
    ::testing::Values(
        DeleteCase{"NoConditions", {}, false, true},
        DeleteCase{"MatchHolds", {.if_metageneration_match = 2}, false, true},
        DeleteCase{"NotMatchHolds", {.if_metageneration_not_match = 1}, false, true},
        DeleteCase{"MatchStale", {.if_metageneration_match = 1}, false, false, true},
        DeleteCase{"NotMatchFails", {.if_metageneration_not_match = 2}, false, false, true},
        DeleteCase{"ConditionsBeforeEmptiness", {.if_metageneration_match = 1}, true, false, true},
        DeleteCase{"NotEmpty", {.if_metageneration_match = 2}, true, false, false}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(BucketLabelsTest, DeletingAMissingBucketIsNotFoundWhateverItsConditions) {
  EXPECT_EQ(store_->DeleteBucket("none", {.if_metageneration_match = 1}).code(), Code::kNotFound);
  EXPECT_EQ(store_->DeleteBucket("Bad Name", {}).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace trainyard::store
