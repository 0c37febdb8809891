#include "store/bucket_store.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakes/fake_clock.h"
#include "fakes/temp_dir.h"
#include "os/file.h"
#include "store/rewind_storage_db.h"

namespace trainyard::store {
namespace {

namespace fs = std::filesystem;
using trainyard::testing::FakeClock;
using trainyard::testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const fs::path& path, const std::string& data) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << data;
}

// Every path under `dir`, relative, sorted: what a refused request must leave unchanged.
std::vector<std::string> Tree(const fs::path& dir) {
  std::vector<std::string> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    paths.push_back(fs::relative(entry.path(), dir).string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

class BucketStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Reopen();
    ASSERT_TRUE(store_->CreateBucket("proj", "bkt").ok());
  }

  void Reopen() {
    store_.reset();
    auto store = OpenFileBucketStore(Root().string(), dir_.File("storage.db"), clock_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *std::move(store);
  }

  fs::path Root() const { return dir_.path() / "buckets"; }

  ObjectInfo Put(std::string_view name, std::string_view data) {
    auto info = store_->PutObject("bkt", name, data, "", {}, {}, {});
    EXPECT_TRUE(info.ok()) << name << ": " << info.status().ToString();
    return info.ok() ? *info : ObjectInfo{};
  }

  // The names and prefixes of every page of a listing, pages separated by "|".
  std::vector<std::string> ListAll(ListObjectsRequest request) {
    std::vector<std::string> seen;
    for (int page = 0; page < 100; ++page) {
      auto listing = store_->ListObjects("bkt", request);
      EXPECT_TRUE(listing.ok()) << listing.status().ToString();
      if (!listing.ok()) {
        break;
      }
      std::vector<std::string> entries;
      for (const ObjectInfo& object : listing->objects) {
        entries.push_back(object.name);
      }
      entries.insert(entries.end(), listing->prefixes.begin(), listing->prefixes.end());
      std::sort(entries.begin(), entries.end());
      seen.insert(seen.end(), entries.begin(), entries.end());
      if (listing->next_page_token.empty()) {
        break;
      }
      seen.emplace_back("|");
      request.page_token = listing->next_page_token;
    }
    return seen;
  }

  TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<BucketStore> store_;
};

TEST_F(BucketStoreTest, CreatesGetsAndListsBucketsByProject) {
  ASSERT_TRUE(store_->CreateBucket("proj", "abc").ok());
  ASSERT_TRUE(store_->CreateBucket("other", "zzz").ok());
  EXPECT_TRUE(fs::is_directory(Root() / "abc"));
  auto bucket = store_->GetBucket("abc");
  ASSERT_TRUE(bucket.ok());
  EXPECT_EQ(bucket->project, "proj");
  EXPECT_EQ(bucket->create_time, clock_.Now());
  auto listed = store_->ListBuckets("proj");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2U);
  EXPECT_EQ((*listed)[0].name, "abc");
  EXPECT_EQ((*listed)[1].name, "bkt");
  EXPECT_EQ(store_->CreateBucket("other", "abc").status().code(), Code::kAlreadyExists);
  EXPECT_EQ(store_->GetBucket("nope").status().code(), Code::kNotFound);
  EXPECT_EQ(store_->GetBucket("nope").status().message(), "The specified bucket does not exist.");
}

TEST_F(BucketStoreTest, TheScratchDirIsNoBucket) {
  EXPECT_EQ(store_->scratch_dir(), (Root() / ".uploads").string());
  EXPECT_EQ(store_->CreateBucket("proj", ".uploads").status().code(), Code::kInvalidArgument);
  auto listed = store_->ListBuckets("proj");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 1U);
}

TEST_F(BucketStoreTest, PutsAndReadsAnObjectAsAPlainFile) {
  const ObjectHeaders headers{.cache_control = "no-cache",
                              .content_disposition = "attachment",
                              .content_encoding = "gzip",
                              .content_language = "en"};
  auto info =
      store_->PutObject("bkt", "dir/hello.txt", "hello", "text/plain", {{"k", "v"}}, headers, {});
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->size, 5);
  EXPECT_EQ(info->md5_base64, "XUFAKrxLKna5cZ2REBfFkg==");
  EXPECT_EQ(info->crc32c_base64, "mnG7TA==");
  EXPECT_EQ(ReadFile((Root() / "bkt/dir/hello.txt").string()), "hello");
  auto file = store_->OpenObject("bkt", "dir/hello.txt");
  ASSERT_TRUE(file.ok());
  std::string read;
  ASSERT_EQ(os::ReadAtMost(file->get(), 100, read), 0);
  EXPECT_EQ(read, "hello");

  Reopen();  // the metadata lives in the database
  auto got = store_->GetObject("bkt", "dir/hello.txt");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->content_type, "text/plain");
  EXPECT_EQ(got->metadata, (std::map<std::string, std::string>{{"k", "v"}}));
  EXPECT_EQ(got->headers, headers);
  EXPECT_EQ(got->generation, info->generation);
  EXPECT_EQ(got->md5_base64, info->md5_base64);
}

TEST_F(BucketStoreTest, ObjectsOfAVersion1DatabaseHaveNoHeaders) {
  ASSERT_TRUE(store_->PutObject("bkt", "old", "hello", "text/plain", {}, {}, {}).ok());
  store_.reset();
  RewindStorageDb(dir_.File("storage.db"), 1);
  Reopen();
  auto got = store_->GetObject("bkt", "old");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->content_type, "text/plain");
  EXPECT_EQ(got->headers, ObjectHeaders{});
  auto put = store_->PutObject("bkt", "new", "x", "", {}, {.content_language = "de"}, {});
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  EXPECT_EQ(store_->GetObject("bkt", "new")->headers.content_language, "de");
}

TEST_F(BucketStoreTest, PatchesMetadataAndKeepsItAcrossARestart) {
  auto put = store_->PutObject("bkt", "p", "bytes", "text/plain", {{"a", "1"}, {"b", "2"}},
                               {.cache_control = "no-cache"}, {});
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  EXPECT_EQ(put->metageneration, 1);
  clock_.Advance(std::chrono::seconds(5));
  ObjectPatch patch{.content_type = "", .metadata = {.keys = {{"a", std::nullopt}, {"c", "3"}}}};
  patch.headers[0] = "";    // cacheControl cleared
  patch.headers[3] = "en";  // contentLanguage set
  auto patched = store_->PatchObject("bkt", "p", patch, {});
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ(patched->metageneration, 2);
  EXPECT_EQ(patched->generation, put->generation);
  EXPECT_EQ(patched->md5_base64, put->md5_base64);
  EXPECT_EQ(patched->content_type, "application/octet-stream");
  EXPECT_EQ(patched->metadata, (std::map<std::string, std::string>{{"b", "2"}, {"c", "3"}}));
  EXPECT_EQ(patched->headers, (ObjectHeaders{.content_language = "en"}));
  EXPECT_GT(patched->updated, put->updated);
  Reopen();
  auto got = store_->GetObject("bkt", "p");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->metageneration, 2);
  EXPECT_EQ(got->metadata, patched->metadata);
  EXPECT_EQ(ReadFile((Root() / "bkt/p").string()), "bytes");
  // A write starts over at metageneration 1; a file written behind the store's back can be
  // patched too; a missing one is NOT_FOUND.
  EXPECT_EQ(Put("p", "new").metageneration, 1);
  WriteFile(Root() / "bkt/plain", "x");
  auto plain = store_->PatchObject("bkt", "plain", {.metadata = {.clear = true}}, {});
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->metageneration, 2);
  EXPECT_EQ(store_->PatchObject("bkt", "none", {}, {}).status().code(), Code::kNotFound);
}

TEST_F(BucketStoreTest, ObjectsOfAVersion2DatabaseAreAtMetageneration1) {
  ASSERT_TRUE(store_->PutObject("bkt", "old", "hello", "text/plain", {}, {}, {}).ok());
  store_.reset();
  RewindStorageDb(dir_.File("storage.db"), 2);
  Reopen();
  auto got = store_->GetObject("bkt", "old");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->metageneration, 1);
}

TEST_F(BucketStoreTest, PutsFromAFileByMovingIt) {
  const std::string source = store_->scratch_dir() + "/upload-1";
  WriteFile(source, "payload");
  auto info = store_->PutObjectFromFile("bkt", "pkg.tar.gz", source, "", {}, {}, {});
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->content_type, "application/octet-stream");
  EXPECT_FALSE(fs::exists(source));
  EXPECT_EQ(ReadFile((Root() / "bkt/pkg.tar.gz").string()), "payload");
}

TEST_F(BucketStoreTest, EachWriteGetsANewGeneration) {
  const std::int64_t first = Put("x", "1").generation;
  const std::int64_t second = Put("x", "22").generation;  // the same instant of the clock
  EXPECT_GT(second, first);
  clock_.Advance(std::chrono::seconds(1));
  EXPECT_EQ(Put("x", "333").generation,
            std::chrono::duration_cast<std::chrono::microseconds>(clock_.Now().time_since_epoch())
                .count());
  EXPECT_EQ(store_->GetObject("bkt", "x")->size, 3);
}

TEST_F(BucketStoreTest, MissingThingsAreNotFound) {
  EXPECT_EQ(store_->PutObject("nobucket", "x", "d", "", {}, {}, {}).status().code(),
            Code::kNotFound);
  EXPECT_FALSE(fs::exists(Root() / "nobucket"));
  EXPECT_EQ(store_->GetObject("bkt", "missing").status().message(), "No such object: bkt/missing");
  EXPECT_EQ(store_->OpenObject("bkt", "missing").status().code(), Code::kNotFound);
  EXPECT_EQ(store_->DeleteObject("bkt", "missing", {}).code(), Code::kNotFound);
  EXPECT_EQ(store_->ListObjects("nobucket", {}).status().code(), Code::kNotFound);
  Put("dir/x", "d");
  EXPECT_EQ(store_->GetObject("bkt", "dir").status().code(), Code::kNotFound);  // a folder
  EXPECT_EQ(store_->GetObject("bkt", "dir/").status().code(), Code::kNotFound);
}

struct BadWrite {
  std::string name;
  std::string bucket;
  std::string object;
  std::string field;
};

class BadNamesTest : public BucketStoreTest, public ::testing::WithParamInterface<BadWrite> {};

TEST_P(BadNamesTest, AreRefusedWithoutWritingAnything) {
  const BadWrite& c = GetParam();
  const std::vector<std::string> before = Tree(dir_.path());
  for (const Status& status :
       {store_->PutObject(c.bucket, c.object, "data", "", {}, {}, {}).status(),
        store_->StartUpload(c.bucket, c.object, "", {}, {}, {}).status()}) {
    EXPECT_EQ(status.code(), Code::kInvalidArgument) << status.ToString();
    ASSERT_EQ(status.violations().size(), 1U);
    EXPECT_EQ(status.violations()[0].field, c.field);
  }
  EXPECT_EQ(Tree(dir_.path()), before);
}

INSTANTIATE_TEST_SUITE_P(Escapes, BadNamesTest,
                         ::testing::Values(BadWrite{"ParentObject", "bkt", "../escaped", "object"},
                                           BadWrite{"DeepParent", "bkt", "a/../../../escaped",
                                                    "object"},
                                           BadWrite{"Absolute", "bkt", "/tmp/escaped", "object"},
                                           BadWrite{"Nul", "bkt", std::string("a\0b", 3), "object"},
                                           BadWrite{"Folder", "bkt", "dir/", "object"},
                                           BadWrite{"ParentBucket", "..", "x", "bucket"},
                                           BadWrite{"SlashBucket", "bkt/../..", "x", "bucket"},
                                           BadWrite{"ScratchBucket", ".uploads", "x", "bucket"}),
                         [](const auto& tc) { return tc.param.name; });

TEST_F(BucketStoreTest, CopiesObjectsWithTheirMetadata) {
  ASSERT_TRUE(store_->CreateBucket("proj", "other").ok());
  ASSERT_TRUE(store_
                  ->PutObject("bkt", "src", "hello", "text/plain", {{"k", "v"}},
                              {.cache_control = "private"}, {})
                  .ok());
  auto copy = store_->CopyObject("bkt", "src", "other", "dir/copy", {}, {});
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  EXPECT_EQ(copy->content_type, "text/plain");
  EXPECT_EQ(copy->headers, ObjectHeaders{.cache_control = "private"});
  EXPECT_EQ(copy->metadata.at("k"), "v");
  EXPECT_EQ(copy->md5_base64, "XUFAKrxLKna5cZ2REBfFkg==");
  EXPECT_EQ(ReadFile((Root() / "other/dir/copy").string()), "hello");
  EXPECT_EQ(ReadFile((Root() / "bkt/src").string()), "hello");
  EXPECT_EQ(store_->CopyObject("bkt", "missing", "bkt", "x", {}, {}).status().code(),
            Code::kNotFound);
  EXPECT_EQ(store_->CopyObject("bkt", "src", "bkt", "../x", {}, {}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(store_->CopyObject("bkt", "src", "nobucket", "x", {}, {}).status().code(),
            Code::kNotFound);
}

TEST_F(BucketStoreTest, ANameCannotBeBothAnObjectAndAFolder) {
  Put("a/b", "1");
  auto file_over_folder = store_->PutObject("bkt", "a", "2", "", {}, {}, {});
  EXPECT_EQ(file_over_folder.status().code(), Code::kFailedPrecondition);
  Put("x", "3");
  auto folder_under_file = store_->PutObject("bkt", "x/y", "4", "", {}, {}, {});
  EXPECT_EQ(folder_under_file.status().code(), Code::kFailedPrecondition)
      << folder_under_file.status().ToString();
  EXPECT_EQ(ReadFile((Root() / "bkt/x").string()), "3");

  // Once "a/b" is gone, "a" is free again (the empty folder is no object).
  ASSERT_TRUE(store_->DeleteObject("bkt", "a/b", {}).ok());
  Put("a", "5");
  EXPECT_EQ(ReadFile((Root() / "bkt/a").string()), "5");
}

TEST_F(BucketStoreTest, DeletesObjects) {
  Put("dir/x", "1");
  ASSERT_TRUE(store_->DeleteObject("bkt", "dir/x", {}).ok());
  EXPECT_FALSE(fs::exists(Root() / "bkt/dir/x"));
  EXPECT_EQ(store_->GetObject("bkt", "dir/x").status().code(), Code::kNotFound);
  EXPECT_TRUE(ListAll({}).empty());
}

TEST_F(BucketStoreTest, ListsInByteOrderWithPrefixAndDelimiter) {
  for (const char* name : {"e", "dir/c/d", "a.txt", "dir-x", "dir/b", "dir/c/e", "f/g/h"}) {
    Put(name, name);
  }
  EXPECT_EQ(ListAll({}), (std::vector<std::string>{"a.txt", "dir-x", "dir/b", "dir/c/d", "dir/c/e",
                                                   "e", "f/g/h"}));
  EXPECT_EQ(ListAll({.delimiter = "/"}),
            (std::vector<std::string>{"a.txt", "dir-x", "dir/", "e", "f/"}));
  EXPECT_EQ(ListAll({.prefix = "dir/", .delimiter = "/"}),
            (std::vector<std::string>{"dir/b", "dir/c/"}));
  EXPECT_EQ(ListAll({.prefix = "dir", .delimiter = "/"}),
            (std::vector<std::string>{"dir-x", "dir/"}));
  EXPECT_EQ(ListAll({.prefix = "dir/c"}), (std::vector<std::string>{"dir/c/d", "dir/c/e"}));
  EXPECT_EQ(ListAll({.prefix = "zzz"}), (std::vector<std::string>{}));
  // Any delimiter, not only "/".
  EXPECT_EQ(
      ListAll({.delimiter = "-"}),
      (std::vector<std::string>{"a.txt", "dir-", "dir/b", "dir/c/d", "dir/c/e", "e", "f/g/h"}));
}

TEST_F(BucketStoreTest, PagesCoverEveryEntryOnce) {
  for (const char* name : {"a", "b/1", "b/2", "b/3", "c", "d/x/y", "e"}) {
    Put(name, name);
  }
  EXPECT_EQ(ListAll({.max_results = 2}),
            (std::vector<std::string>{"a", "b/1", "|", "b/2", "b/3", "|", "c", "d/x/y", "|", "e"}));
  EXPECT_EQ(ListAll({.delimiter = "/", .max_results = 2}),
            (std::vector<std::string>{"a", "b/", "|", "c", "d/", "|", "e"}));
  EXPECT_EQ(ListAll({.delimiter = "/", .max_results = 1}),
            (std::vector<std::string>{"a", "|", "b/", "|", "c", "|", "d/", "|", "e"}));
}

// objects.list's startOffset (inclusive), endOffset (exclusive) and matchGlob, which filter
// before a page is counted: pages stay full, and a prefix is listed only when an object folded
// into it passes (docs/reference/ai-platform-training.md §11.1).
TEST_F(BucketStoreTest, FiltersByOffsetsAndGlobBeforePaging) {
  for (const char* name : {"a.txt", "b/1.txt", "b/2.bin", "c.bin", "d/e/f.txt", "g"}) {
    Put(name, name);
  }
  EXPECT_EQ(ListAll({.start_offset = "b/2", .end_offset = "d/e/f.txt"}),
            (std::vector<std::string>{"b/2.bin", "c.bin"}));
  EXPECT_EQ(ListAll({.start_offset = "c"}), (std::vector<std::string>{"c.bin", "d/e/f.txt", "g"}));
  EXPECT_EQ(ListAll({.end_offset = "b/2.bin"}), (std::vector<std::string>{"a.txt", "b/1.txt"}));
  EXPECT_EQ(ListAll({.match_glob = "**.txt"}),
            (std::vector<std::string>{"a.txt", "b/1.txt", "d/e/f.txt"}));
  EXPECT_EQ(ListAll({.match_glob = "*.bin"}), (std::vector<std::string>{"c.bin"}));
  EXPECT_EQ(ListAll({.max_results = 1, .match_glob = "**.txt"}),
            (std::vector<std::string>{"a.txt", "|", "b/1.txt", "|", "d/e/f.txt"}));
  EXPECT_EQ(ListAll({.delimiter = "/", .match_glob = "**.bin"}),
            (std::vector<std::string>{"b/", "c.bin"}));
  EXPECT_EQ(ListAll({.delimiter = "/", .start_offset = "b/3"}),
            (std::vector<std::string>{"c.bin", "d/", "g"}));
  auto refused = store_->ListObjects("bkt", {.match_glob = "[ab"});
  EXPECT_EQ(refused.status().code(), Code::kInvalidArgument);
  ASSERT_EQ(refused.status().violations().size(), 1U);
  EXPECT_EQ(refused.status().violations()[0].field, "matchGlob");
}

TEST_F(BucketStoreTest, RefusesAForeignPageToken) {
  for (const char* token : {"not base64!", "AAAA=", ""}) {
    auto listing = store_->ListObjects("bkt", {.page_token = token});
    if (std::string_view(token).empty()) {
      EXPECT_TRUE(listing.ok());
      continue;
    }
    EXPECT_EQ(listing.status().code(), Code::kInvalidArgument) << token;
    ASSERT_EQ(listing.status().violations().size(), 1U);
    EXPECT_EQ(listing.status().violations()[0].field, "pageToken");
  }
}

TEST_F(BucketStoreTest, SeesFilesWrittenBehindItsBack) {
  WriteFile(Root() / "bkt/job/model/saved.pb", "hello");
  auto info = store_->GetObject("bkt", "job/model/saved.pb");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->size, 5);
  EXPECT_EQ(info->md5_base64, "XUFAKrxLKna5cZ2REBfFkg==");
  EXPECT_EQ(info->content_type, "application/octet-stream");
  EXPECT_EQ(ListAll({.prefix = "job/"}), (std::vector<std::string>{"job/model/saved.pb"}));

  // Rewritten by the trainer: the store notices and hashes again.
  WriteFile(Root() / "bkt/job/model/saved.pb", "123456789");
  auto changed = store_->GetObject("bkt", "job/model/saved.pb");
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(changed->size, 9);
  EXPECT_EQ(changed->crc32c_base64, "4waSgw==");
  EXPECT_GT(changed->generation, info->generation);
  auto listing = store_->ListObjects("bkt", {.prefix = "job/"});
  ASSERT_TRUE(listing.ok());
  ASSERT_EQ(listing->objects.size(), 1U);
  EXPECT_EQ(listing->objects[0].md5_base64, changed->md5_base64);
}

TEST_F(BucketStoreTest, NeverFollowsSymbolicLinksOutOfTheBucket) {
  WriteFile(dir_.path() / "secret", "secret");
  fs::create_directories(Root() / "bkt/dir");
  fs::create_symlink(dir_.path() / "secret", Root() / "bkt/link");
  fs::create_directory_symlink(dir_.path(), Root() / "bkt/dir/up");
  EXPECT_EQ(store_->GetObject("bkt", "link").status().code(), Code::kNotFound);
  EXPECT_EQ(store_->OpenObject("bkt", "dir/up/secret").status().code(), Code::kNotFound);
  EXPECT_TRUE(ListAll({}).empty());
  EXPECT_EQ(store_->PutObject("bkt", "dir/up/secret", "x", "", {}, {}, {}).status().code(),
            Code::kFailedPrecondition);
  EXPECT_EQ(ReadFile(dir_.File("secret")), "secret");
}

TEST_F(BucketStoreTest, ForgetsScratchFilesOlderThanADay) {
  const std::string stale = store_->scratch_dir() + "/req-1-1";
  const std::string fresh = store_->scratch_dir() + "/req-1-2";
  WriteFile(stale, "left by a crash");
  WriteFile(fresh, "an upload in progress");
  clock_.Advance(std::chrono::hours(48));
  // Times of the fake clock: the stale file changed 25 hours before "now", the fresh one 23.
  const auto at = [&](std::chrono::hours ago) {
    const auto seconds =
        std::chrono::duration_cast<std::chrono::seconds>((clock_.Now() - ago).time_since_epoch());
    const timespec time{static_cast<time_t>(seconds.count()), 0};
    return std::array<timespec, 2>{time, time};
  };
  ASSERT_EQ(::utimensat(AT_FDCWD, stale.c_str(), at(std::chrono::hours(25)).data(), 0), 0);
  ASSERT_EQ(::utimensat(AT_FDCWD, fresh.c_str(), at(std::chrono::hours(23)).data(), 0), 0);
  Reopen();
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));
}

TEST_F(BucketStoreTest, DeletesOnlyEmptyBuckets) {
  Put("x/y", "1");
  EXPECT_EQ(store_->DeleteBucket("bkt", {}).code(), Code::kFailedPrecondition);
  ASSERT_TRUE(store_->DeleteObject("bkt", "x/y", {}).ok());
  ASSERT_TRUE(store_->DeleteBucket("bkt", {}).ok());
  EXPECT_FALSE(fs::exists(Root() / "bkt"));
  EXPECT_EQ(store_->GetBucket("bkt").status().code(), Code::kNotFound);
  EXPECT_EQ(store_->DeleteBucket("bkt", {}).code(), Code::kNotFound);
}

}  // namespace
}  // namespace trainyard::store
