// The bucket store's request preconditions (store/preconditions.h) evaluated with each write,
// under the lock that orders writes: table-driven outcomes for every kind of change, and races of
// many writers on one object that must end with exactly one change (issue #36).
#include <fstream>
#include <functional>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include "fakes/temp_dir.h"
#include "store/bucket_store.h"

namespace trainyard::store {
namespace {

using trainyard::testing::FakeClock;
using trainyard::testing::TempDir;

constexpr int kWriters = 16;

class ObjectPreconditionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenFileBucketStore(dir_.File("buckets"), dir_.File("storage.db"), clock_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *std::move(store);
    ASSERT_TRUE(store_->CreateBucket("proj", "bkt").ok());
  }

  ObjectInfo Put(const std::string& name, const std::string& data) {
    auto put = store_->PutObject("bkt", name, data, "", {}, {}, {});
    EXPECT_TRUE(put.ok()) << put.status().ToString();
    return put.ok() ? *put : ObjectInfo{};
  }

  std::string Chunk(const std::string& data) {
    std::string path = dir_.File("chunk" + std::to_string(chunks_++));
    std::ofstream(path, std::ios::binary) << data;
    return path;
  }

  // Runs `write(i)` on kWriters threads released together; the statuses, by writer.
  static std::vector<Status> Race(const std::function<Status(int)>& write) {
    std::vector<Status> statuses(kWriters);
    std::latch start(kWriters);
    std::vector<std::thread> threads;
    threads.reserve(kWriters);
    for (int i = 0; i < kWriters; ++i) {
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        statuses[static_cast<std::size_t>(i)] = write(i);
      });
    }
    for (std::thread& thread : threads) {
      thread.join();
    }
    return statuses;
  }

  // Checks that exactly one of `statuses` is OK and every other one is `ConditionNotMet()` (or,
  // with `or_not_found`, NOT_FOUND: a delete that finds the object gone); the winner's index.
  static int OneWinner(const std::vector<Status>& statuses, bool or_not_found = false) {
    int winner = -1;
    int winners = 0;
    for (std::size_t i = 0; i < statuses.size(); ++i) {
      const Status& status = statuses[i];
      if (status.ok()) {
        winner = static_cast<int>(i);
        ++winners;
        continue;
      }
      EXPECT_TRUE(IsConditionNotMet(status) || (or_not_found && status.code() == Code::kNotFound))
          << status.ToString();
    }
    EXPECT_EQ(winners, 1);
    return winner;
  }

  TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<BucketStore> store_;
  int chunks_ = 0;
};

TEST_F(ObjectPreconditionsTest, EachChangeIsRefusedWhenItsConditionFails) {
  const ObjectInfo live = Put("obj", "one");
  const Preconditions stale{.if_generation_match = live.generation - 1};
  const Preconditions absent{.if_generation_match = 0};
  const Preconditions old_meta{.if_metageneration_match = live.metageneration + 1};
  EXPECT_TRUE(IsConditionNotMet(store_->PutObject("bkt", "obj", "x", "", {}, {}, absent).status()));
  EXPECT_TRUE(IsConditionNotMet(store_->PutObject("bkt", "obj", "x", "", {}, {}, stale).status()));
  EXPECT_TRUE(
      IsConditionNotMet(store_->CopyObject("bkt", "obj", "bkt", "obj", {}, stale).status()));
  EXPECT_TRUE(IsConditionNotMet(store_->PatchObject("bkt", "obj", {}, old_meta).status()));
  EXPECT_TRUE(IsConditionNotMet(store_->DeleteObject("bkt", "obj", stale)));
  EXPECT_TRUE(IsConditionNotMet(
      store_->PutObject("bkt", "new", "x", "", {}, {}, {.if_generation_not_match = 0}).status()));
  const std::string source = Chunk("from a file");
  EXPECT_TRUE(IsConditionNotMet(
      store_->PutObjectFromFile("bkt", "obj", source, "", {}, {}, stale).status()));
  // A rewrite's source conditions are the source's (ifSourceGenerationMatch, …).
  EXPECT_TRUE(
      IsConditionNotMet(store_->CopyObject("bkt", "obj", "bkt", "new", stale, {}).status()));
  // Nothing changed: the same generation and metageneration, no new object.
  auto now = store_->GetObject("bkt", "obj");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->generation, live.generation);
  EXPECT_EQ(now->metageneration, live.metageneration);
  EXPECT_EQ(store_->GetObject("bkt", "new").status().code(), Code::kNotFound);
  // Deleting a missing object is NOT_FOUND whatever its conditions say.
  EXPECT_EQ(store_->DeleteObject("bkt", "new", absent).code(), Code::kNotFound);

  // Holding conditions let each change through.
  const Preconditions current{.if_generation_match = live.generation,
                              .if_metageneration_match = live.metageneration};
  auto patched = store_->PatchObject("bkt", "obj", {.content_type = "text/plain"}, current);
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  auto copied = store_->CopyObject("bkt", "obj", "bkt", "copy",
                                   {.if_metageneration_match = patched->metageneration}, absent);
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_TRUE(store_->DeleteObject("bkt", "obj", {.if_metageneration_match = 2}).ok());
}

TEST_F(ObjectPreconditionsTest, AFileWrittenBehindTheStoreIsTheLiveObject) {
  const ObjectInfo live = Put("obj", "one");
  std::ofstream(dir_.File("buckets/bkt/obj"), std::ios::binary) << "rewritten by a job";
  std::ofstream(dir_.File("buckets/bkt/plain"), std::ios::binary) << "never seen by the store";
  EXPECT_TRUE(IsConditionNotMet(
      store_->PutObject("bkt", "plain", "x", "", {}, {}, {.if_generation_match = 0}).status()));
  EXPECT_TRUE(IsConditionNotMet(store_->DeleteObject(
      "bkt", "obj", {.if_generation_match = live.generation})));  // it has a new generation
  auto described = store_->GetObject("bkt", "obj");
  ASSERT_TRUE(described.ok());
  EXPECT_NE(described->generation, live.generation);
  EXPECT_TRUE(
      store_->DeleteObject("bkt", "obj", {.if_generation_match = described->generation}).ok());
}

TEST_F(ObjectPreconditionsTest, RacingCreatorsWriteOnce) {
  const std::vector<Status> statuses = Race([&](int i) {
    return store_
        ->PutObject("bkt", "obj", "writer " + std::to_string(i), "", {}, {},
                    {.if_generation_match = 0})
        .status();
  });
  const int winner = OneWinner(statuses);
  std::ifstream in(dir_.File("buckets/bkt/obj"));
  std::string bytes;
  std::getline(in, bytes);
  EXPECT_EQ(bytes, "writer " + std::to_string(winner));
}

TEST_F(ObjectPreconditionsTest, RacingReplacersOfOneGenerationWriteOnce) {
  const ObjectInfo live = Put("obj", "one");
  const std::string source = Chunk("copied");
  ASSERT_TRUE(store_->PutObject("bkt", "src", "copied", "", {}, {}, {}).ok());
  // Writes of every kind, each on the generation and metageneration all of them read (a patch
  // keeps the generation and raises the metageneration).
  const Preconditions conditions{.if_generation_match = live.generation,
                                 .if_metageneration_match = live.metageneration};
  OneWinner(Race([&](int i) {
    switch (i % 3) {
      case 0:
        return store_->PutObject("bkt", "obj", "put", "", {}, {}, conditions).status();
      case 1:
        return store_->CopyObject("bkt", "src", "bkt", "obj", {}, conditions).status();
      default:
        return store_->PatchObject("bkt", "obj", {.content_type = "text/csv"}, conditions).status();
    }
  }));
}

TEST_F(ObjectPreconditionsTest, RacingDeletersRemoveOnce) {
  const ObjectInfo live = Put("obj", "one");
  OneWinner(Race([&](int) {
              return store_->DeleteObject("bkt", "obj", {.if_generation_match = live.generation});
            }),
            /*or_not_found=*/true);
}

TEST_F(ObjectPreconditionsTest, RacingResumableUploadsFinishOnce) {
  std::vector<std::string> sessions;
  for (int i = 0; i < kWriters; ++i) {
    auto id = store_->StartUpload("bkt", "obj", "", {}, {}, {.if_generation_match = 0});
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    sessions.push_back(*id);
  }
  std::vector<std::string> chunks;
  for (int i = 0; i < kWriters; ++i) {
    chunks.push_back(Chunk((i < 10 ? "upload0" : "upload") + std::to_string(i)));  // 8 bytes
  }
  const int winner = OneWinner(Race([&](int i) {
    const auto index = static_cast<std::size_t>(i);
    return store_->AppendUpload(sessions[index], 0, chunks[index], 8).status();
  }));
  ASSERT_GE(winner, 0);
  // A refused session is gone; the winner's answers its object.
  for (int i = 0; i < kWriters; ++i) {
    const Code code = store_->QueryUpload(sessions[static_cast<std::size_t>(i)]).status().code();
    EXPECT_EQ(code, i == winner ? Code::kOk : Code::kNotFound) << i;
  }
}

}  // namespace
}  // namespace trainyard::store
