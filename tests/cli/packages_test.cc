#include "cli/local/packages.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/local/temp_dir.h"

namespace trainyard::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PackagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("trainyard-packages-test-");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_.emplace(*std::move(dir));
  }

  fs::path Write(const std::string& relative, const std::string& contents) {
    fs::path path = dir_->path() / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << contents;
    return path;
  }

  std::optional<TempDir> dir_;
};

TEST(StagingLocation, PrefersTheStagingBucketUnderTheJobId) {
  auto location = StagingLocation(
      {.job_id = "job_1", .staging_bucket = "bkt1", .job_dir = ObjectRef{"other", "out"}});
  ASSERT_TRUE(location.ok());
  EXPECT_EQ(**location, (ObjectRef{"bkt1", "job_1"}));
}

TEST(StagingLocation, FallsBackToPackagesUnderTheJobDir) {
  EXPECT_EQ(**StagingLocation({.job_id = "j", .job_dir = ObjectRef{"bkt1", "out/"}}),
            (ObjectRef{"bkt1", "out/packages"}));
  EXPECT_EQ(**StagingLocation({.job_id = "j", .job_dir = ObjectRef{"bkt1", ""}}),
            (ObjectRef{"bkt1", "packages"}));
  EXPECT_FALSE(StagingLocation({.job_id = "j"})->has_value());
}

TEST(StagingLocation, ChecksTheJobDirBucketThatTheFlagLetThrough) {
  auto location = StagingLocation({.job_id = "j", .job_dir = ObjectRef{"b", ""}});
  ASSERT_FALSE(location.ok());
  EXPECT_THAT(location.status().message(), HasSubstr("Invalid bucket name [b]"));
}

TEST(UploadObjectName, JoinsPrefixChecksumAndBasename) {
  EXPECT_EQ(UploadObjectName("job_1", "abc", "trainer-0.0.0.tar.gz"),
            "job_1/abc/trainer-0.0.0.tar.gz");
}

TEST_F(PackagesTest, ChecksumCoversTheConcatenatedFiles) {
  const fs::path a = Write("a", "ab");
  const fs::path b = Write("b", "c");
  // sha256("abc"), the FIPS 180-2 test vector.
  EXPECT_EQ(*Sha256OfFiles({a, b}),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_FALSE(Sha256OfFiles({dir_->path() / "missing"}).ok());
}

TEST_F(PackagesTest, UsesStorageObjectsAsTheyAreAndStagesLocalFilesAfterThem) {
  const fs::path a = Write("dist/a-1.0.tar.gz", "ab");
  const fs::path b = Write("dist/b.whl", "c");
  auto staged = StagePackages({.job_id = "job_1",
                               .packages = {a.string(), "gs://bkt1/remote.tar.gz", b.string()},
                               .staging_bucket = "bkt1"});
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  const std::string prefix =
      "gs://bkt1/job_1/ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad/";
  EXPECT_THAT(staged->uris,
              ElementsAre("gs://bkt1/remote.tar.gz", prefix + "a-1.0.tar.gz", prefix + "b.whl"));
  ASSERT_EQ(staged->uploads.size(), 2u);
  EXPECT_EQ(staged->uploads[0].local_path, a);
  EXPECT_EQ(staged->uploads[1].destination.Url(), prefix + "b.whl");
}

TEST_F(PackagesTest, NeedsAStagingLocationForLocalFiles) {
  const fs::path a = Write("a.tar.gz", "x");
  auto staged = StagePackages({.job_id = "j", .packages = {a.string()}});
  ASSERT_FALSE(staged.ok());
  EXPECT_EQ(staged.status().message(),
            "If local packages are provided, the `--staging-bucket` or `--job-dir` flag must be "
            "given.");
}

TEST_F(PackagesTest, RefusesTwoFilesWithOneName) {
  const fs::path a = Write("x/p.tar.gz", "1");
  const fs::path b = Write("y/p.tar.gz", "2");
  auto staged = StagePackages(
      {.job_id = "j", .packages = {a.string(), b.string()}, .staging_bucket = "bkt1"});
  ASSERT_FALSE(staged.ok());
  EXPECT_EQ(staged.status().message(),
            "Cannot upload multiple packages with the same filename: [p.tar.gz]");
}

TEST_F(PackagesTest, RefusesAMissingLocalFile) {
  auto staged = StagePackages({.job_id = "j",
                               .packages = {(dir_->path() / "nope.tar.gz").string()},
                               .staging_bucket = "bkt1"});
  ASSERT_FALSE(staged.ok());
  EXPECT_THAT(staged.status().message(), HasSubstr("Unable to read file ["));
}

TEST_F(PackagesTest, BuildsThePackagePathWithAGeneratedSetupPy) {
  Write("src/trainer/__init__.py", "");
  Write("src/trainer/task.py", "print('hi')\n");
  auto staged = StagePackages({.job_id = "job_1",
                               .package_path = (dir_->path() / "src" / "trainer").string(),
                               .job_dir = ObjectRef{"bkt1", "out"}});
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  ASSERT_EQ(staged->uris.size(), 1u);
  EXPECT_THAT(
      staged->uris[0],
      ::testing::MatchesRegex("gs://bkt1/out/packages/[0-9a-f]{64}/trainer-0\\.0\\.0\\.tar\\.gz"));
  ASSERT_EQ(staged->uploads.size(), 1u);
  EXPECT_TRUE(fs::is_regular_file(staged->uploads[0].local_path));  // kept for the upload
  EXPECT_FALSE(fs::exists(dir_->path() / "src" / "setup.py"));      // the temporary one is gone
}

TEST_F(PackagesTest, RefusesAPackagePathWithoutInitPy) {
  Write("src/trainer/task.py", "");
  auto staged = StagePackages({.job_id = "j",
                               .package_path = (dir_->path() / "src" / "trainer").string(),
                               .staging_bucket = "bkt1"});
  ASSERT_FALSE(staged.ok());
  EXPECT_THAT(staged.status().message(),
              HasSubstr("is not a valid Python package because it does not contain an "
                        "`__init__.py` file."));
}

}  // namespace
}  // namespace trainyard::cli
