// Links a job planted in its bucket (it can write the bucket's directory as files): whatever the
// position of the link, the store never reads, writes or removes anything outside the bucket.
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include "fakes/temp_dir.h"
#include "store/bucket_store.h"

namespace trainyard::store {
namespace {

namespace fs = std::filesystem;
using trainyard::testing::FakeClock;
using trainyard::testing::TempDir;

// Every entry under `dir` with the bytes of the regular files: what must stay as it was.
std::map<std::string, std::string> Snapshot(const fs::path& dir) {
  std::map<std::string, std::string> entries;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::string text = "<dir>";
    if (entry.is_regular_file()) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream bytes;
      bytes << in.rdbuf();
      text = bytes.str();
    }
    entries[fs::relative(entry.path(), dir).string()] = text;
  }
  return entries;
}

struct LinkCase {
  std::string label;
  std::string link;    // where the link is planted, relative to the bucket's directory
  std::string target;  // what it points at, relative to the outside directory
  std::string name;    // the object name that would go through it
  Code put_code;       // writing `name`: kOk when the link itself is replaced (never followed)
};

class BucketLinksTest : public ::testing::TestWithParam<LinkCase> {
 protected:
  void SetUp() override {
    fs::create_directories(Outside() / "d");
    std::ofstream(Outside() / "secret") << "secret";
    std::ofstream(Outside() / "d" / "f") << "deep";
    auto store = OpenFileBucketStore((dir_.path() / "buckets").string(), dir_.File("s.db"), clock_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *std::move(store);
    ASSERT_TRUE(store_->CreateBucket("proj", "bkt").ok());
    ASSERT_TRUE(store_->PutObject("bkt", "real", "mine", "", {}, {}, {}).ok());
    const fs::path link = Bucket() / GetParam().link;
    fs::create_directories(link.parent_path());
    fs::create_symlink(Outside() / GetParam().target, link);
    before_ = Snapshot(Outside());
  }

  fs::path Outside() const { return dir_.path() / "outside"; }
  fs::path Bucket() const { return dir_.path() / "buckets" / "bkt"; }

  TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<BucketStore> store_;
  std::map<std::string, std::string> before_;
};

TEST_P(BucketLinksTest, ReadsFindNothingThroughTheLink) {
  const std::string& name = GetParam().name;
  EXPECT_EQ(store_->GetObject("bkt", name).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->OpenObject("bkt", name).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->CopyObject("bkt", name, "bkt", "copy", {}, {}).status().code(),
            Code::kNotFound);
  EXPECT_EQ(store_->DeleteObject("bkt", name, {}).code(), Code::kNotFound);
  for (const std::string& delimiter : {std::string(), std::string("/")}) {
    auto listing = store_->ListObjects("bkt", {.delimiter = delimiter});
    ASSERT_TRUE(listing.ok()) << listing.status().ToString();
    ASSERT_EQ(listing->objects.size(), 1U) << delimiter;
    EXPECT_EQ(listing->objects[0].name, "real");
    for (const std::string& prefix : listing->prefixes) {
      EXPECT_FALSE(GetParam().link.starts_with(prefix)) << prefix;  // nothing below is an object
    }
  }
  ASSERT_TRUE(store_->DeleteObject("bkt", "real", {}).ok());
  EXPECT_EQ(store_->DeleteBucket("bkt", {}).code(), Code::kFailedPrecondition);  // the link counts
  EXPECT_TRUE(fs::is_symlink(Bucket() / GetParam().link));
  EXPECT_EQ(Snapshot(Outside()), before_);
}

TEST_P(BucketLinksTest, WritesNeverGoThroughTheLink) {
  const std::string& name = GetParam().name;
  EXPECT_EQ(store_->PutObject("bkt", name, "planted", "", {}, {}, {}).status().code(),
            GetParam().put_code);
  EXPECT_EQ(store_->CopyObject("bkt", "real", "bkt", name, {}, {}).status().code(),
            GetParam().put_code);
  auto upload = store_->StartUpload("bkt", name, "", {}, {}, {});
  ASSERT_TRUE(upload.ok()) << upload.status().ToString();
  const std::string chunk = dir_.File("chunk");
  std::ofstream(chunk) << "uploaded";
  EXPECT_EQ(store_->AppendUpload(*upload, 0, chunk, 8).status().code(), GetParam().put_code);
  EXPECT_EQ(Snapshot(Outside()), before_);
  if (GetParam().put_code == Code::kOk) {
    // The link itself was replaced by the object.
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(Bucket() / GetParam().link)));
    auto info = store_->GetObject("bkt", name);
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    EXPECT_EQ(info->size, 8);
    EXPECT_TRUE(store_->DeleteObject("bkt", name, {}).ok());
  } else {
    EXPECT_TRUE(fs::is_symlink(Bucket() / GetParam().link));
  }
  EXPECT_EQ(Snapshot(Outside()), before_);
}

INSTANTIATE_TEST_SUITE_P(
    Positions, BucketLinksTest,
    ::testing::Values(
        LinkCase{"TheObjectItself", "obj", "secret", "obj", Code::kOk},
        LinkCase{"TheObjectInAFolder", "a/obj", "secret", "a/obj", Code::kOk},
        LinkCase{"ABucketEntryAsFolder", "top", "", "top/secret", Code::kFailedPrecondition},
        LinkCase{"AnIntermediateFolder", "dir/up", "", "dir/up/secret", Code::kFailedPrecondition},
        LinkCase{"ADeepFolder", "a/b/c", "d", "a/b/c/f", Code::kFailedPrecondition},
        LinkCase{"AFolderLinkAsTheObject", "dirlink", "d", "dirlink", Code::kOk},
        LinkCase{"ANewFolderBelowALink", "new", "", "new/made/here", Code::kFailedPrecondition}),
    [](const ::testing::TestParamInfo<LinkCase>& param) { return param.param.label; });

}  // namespace
}  // namespace trainyard::store
