#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include "fakes/temp_dir.h"
#include "store/bucket_store.h"

namespace trainyard::store {
namespace {

namespace fs = std::filesystem;
using trainyard::testing::FakeClock;
using trainyard::testing::TempDir;

class UploadSessionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Reopen();
    ASSERT_TRUE(store_->CreateBucket("proj", "bkt").ok());
  }

  void Reopen() {
    store_.reset();
    auto store = OpenFileBucketStore(dir_.File("buckets"), dir_.File("storage.db"), clock_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *std::move(store);
  }

  // A chunk file holding `data`, as the server spools a request body.
  std::string Chunk(const std::string& data) {
    std::string path = dir_.File("chunk" + std::to_string(chunks_++));
    std::ofstream(path, std::ios::binary) << data;
    return path;
  }

  std::string Start() {
    auto id = store_->StartUpload("bkt", "pkg/trainer.tar.gz", "application/gzip", {{"a", "b"}},
                                  {.content_encoding = "gzip"}, {});
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return id.ok() ? *id : "";
  }

  std::string ObjectBytes(const std::string& name) {
    std::ifstream in(dir_.File("buckets/bkt/" + name), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<BucketStore> store_;
  int chunks_ = 0;
};

TEST_F(UploadSessionsTest, WritesTheObjectOnceEveryByteArrived) {
  const std::string id = Start();
  auto first = store_->AppendUpload(id, 0, Chunk("hello "), std::nullopt);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->received, 6);
  EXPECT_FALSE(first->object.has_value());
  EXPECT_EQ(store_->GetObject("bkt", "pkg/trainer.tar.gz").status().code(), Code::kNotFound);

  auto last = store_->AppendUpload(id, 6, Chunk("world"), 11);
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  ASSERT_TRUE(last->object.has_value());
  EXPECT_EQ(last->object->size, 11);
  EXPECT_EQ(last->object->content_type, "application/gzip");
  EXPECT_EQ(last->object->metadata.at("a"), "b");
  EXPECT_EQ(last->object->headers.content_encoding, "gzip");
  EXPECT_EQ(ObjectBytes("pkg/trainer.tar.gz"), "hello world");

  // A retried last chunk, or a status query, answers with the object.
  auto again = store_->AppendUpload(id, 6, Chunk("world"), 11);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_TRUE(again->object.has_value());
  EXPECT_EQ(again->object->generation, last->object->generation);
  auto query = store_->QueryUpload(id);
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(query->received, 11);
}

TEST_F(UploadSessionsTest, SkipsBytesSentTwiceAndRefusesGaps) {
  const std::string id = Start();
  ASSERT_TRUE(store_->AppendUpload(id, 0, Chunk("abcd"), std::nullopt).ok());
  auto overlap = store_->AppendUpload(id, 2, Chunk("cdef"), std::nullopt);
  ASSERT_TRUE(overlap.ok());
  EXPECT_EQ(overlap->received, 6);

  auto gap = store_->AppendUpload(id, 8, Chunk("ij"), std::nullopt);
  EXPECT_EQ(gap.status().code(), Code::kInvalidArgument);
  ASSERT_EQ(gap.status().violations().size(), 1U);
  EXPECT_EQ(gap.status().violations()[0].field, "Content-Range");
  auto past_end = store_->AppendUpload(id, 6, Chunk("ghij"), 8);
  EXPECT_EQ(past_end.status().code(), Code::kInvalidArgument);

  auto done = store_->AppendUpload(id, 6, Chunk("gh"), 8);
  ASSERT_TRUE(done.ok());
  ASSERT_TRUE(done->object.has_value());
  EXPECT_EQ(ObjectBytes("pkg/trainer.tar.gz"), "abcdefgh");
}

TEST_F(UploadSessionsTest, SurvivesARestart) {
  const std::string id = Start();
  ASSERT_TRUE(store_->AppendUpload(id, 0, Chunk("abc"), std::nullopt).ok());
  Reopen();
  auto query = store_->QueryUpload(id);
  ASSERT_TRUE(query.ok()) << query.status().ToString();
  EXPECT_EQ(query->received, 3);
  auto done = store_->AppendUpload(id, 3, Chunk("def"), 6);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->object.has_value());
}

TEST_F(UploadSessionsTest, ExpiresAfterAWeek) {
  const std::string id = Start();
  clock_.Advance(std::chrono::hours(24 * 7 + 1));
  Reopen();
  EXPECT_EQ(store_->QueryUpload(id).status().code(), Code::kNotFound);
}

TEST_F(UploadSessionsTest, CancelledSessionsAreGone) {
  const std::string id = Start();
  ASSERT_TRUE(store_->CancelUpload(id).ok());
  EXPECT_EQ(store_->QueryUpload(id).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->AppendUpload(id, 0, Chunk("x"), 1).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->GetObject("bkt", "pkg/trainer.tar.gz").status().code(), Code::kNotFound);
}

TEST_F(UploadSessionsTest, UnknownOrMalformedIdsAreNotFound) {
  for (const char* id : {"", "0123456789abcdef0123456789abcdef", "../../../../etc/passwd",
                         "sessions", "0123456789ABCDEF0123456789ABCDEF"}) {
    EXPECT_EQ(store_->QueryUpload(id).status().code(), Code::kNotFound) << id;
    EXPECT_EQ(store_->AppendUpload(id, 0, Chunk("x"), 1).status().code(), Code::kNotFound) << id;
  }
}

TEST_F(UploadSessionsTest, StartChecksTheBucket) {
  EXPECT_EQ(store_->StartUpload("nobucket", "x", "", {}, {}, {}).status().code(), Code::kNotFound);
}

TEST_F(UploadSessionsTest, AnEmptyObjectCompletesAtOnce) {
  const std::string id = Start();
  auto done = store_->AppendUpload(id, 0, Chunk(""), 0);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  ASSERT_TRUE(done->object.has_value());
  EXPECT_EQ(done->object->size, 0);
  EXPECT_EQ(done->object->md5_base64, "1B2M2Y8AsgTpgAmY7PhCfg==");
}

}  // namespace
}  // namespace trainyard::store
