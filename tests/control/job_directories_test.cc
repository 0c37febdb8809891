#include "control/job_directories.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakes/temp_dir.h"

namespace trainyard::control {
namespace {

namespace fs = std::filesystem;

class JobDirectoriesTest : public ::testing::Test {
 protected:
  static mode_t ModeOf(const fs::path& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }

  ::trainyard::testing::TempDir temp_;
  const fs::path& data_ = temp_.path();
};

TEST_F(JobDirectoriesTest, OnlyTheServerWritesWhereItWritesAsRoot) {
  const JobLayout trial(data_.string(), "p", "j", "3");
  const mode_t old_mask = ::umask(0);  // what --run-as's umask would let through, and more
  ASSERT_TRUE(SecureServerDirectories(trial).ok());
  ::umask(old_mask);
  for (const fs::path& dir :
       {data_ / "jobs", data_ / "jobs/p", data_ / "jobs/p/j", data_ / "jobs/p/j/run",
        data_ / "jobs/p/j/logs", data_ / "jobs/p/j/run/trial-3", data_ / "jobs/p/j/logs/trial-3"}) {
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    EXPECT_EQ(ModeOf(dir) & 0022, 0) << dir << " is writable by its group or others";
  }
  // What the job writes in is made elsewhere, by what starts its processes.
  EXPECT_FALSE(fs::exists(data_ / "jobs/p/j/trial-3"));
}

TEST_F(JobDirectoriesTest, TightensWhatAnOlderServerLeftGroupWritable) {
  const JobLayout job(data_.string(), "p", "j");
  fs::create_directories(data_ / "jobs/p/j/run");
  fs::create_directories(data_ / "jobs/p/j/logs");
  for (const char* dir : {"jobs", "jobs/p", "jobs/p/j", "jobs/p/j/run", "jobs/p/j/logs"}) {
    ASSERT_EQ(::chmod((data_ / dir).c_str(), S_ISGID | 0770), 0);
  }
  ASSERT_TRUE(SecureServerDirectories(job).ok());
  for (const char* dir : {"jobs", "jobs/p", "jobs/p/j", "jobs/p/j/run", "jobs/p/j/logs"}) {
    EXPECT_EQ(ModeOf(data_ / dir), S_ISGID | 0750) << dir;
  }
}

TEST_F(JobDirectoriesTest, ALinkInPlaceOfADirectoryIsAnErrorNotFollowed) {
  const JobLayout job(data_.string(), "p", "j");
  fs::create_directories(data_ / "elsewhere");
  ASSERT_EQ(::chmod((data_ / "elsewhere").c_str(), 0777), 0);
  fs::create_directories(data_ / "jobs/p/j");
  fs::create_directory_symlink(data_ / "elsewhere", data_ / "jobs/p/j/run");
  const Status secured = SecureServerDirectories(job);
  ASSERT_FALSE(secured.ok());
  EXPECT_NE(secured.message().find("jobs/p/j/run"), std::string::npos) << secured.message();
  EXPECT_EQ(ModeOf(data_ / "elsewhere"), 0777);  // the link's target is untouched
}

TEST_F(JobDirectoriesTest, AJobDirInABucketIsMadeBeneathItWithoutFollowingLinks) {
  const fs::path gcs = data_ / "buckets";
  fs::create_directories(gcs / "b" / "have");
  fs::create_directories(data_ / "outside");
  fs::create_directory_symlink(data_ / "outside", gcs / "b" / "link");
  fs::create_directory_symlink(data_ / "outside", gcs / "alias");  // a bucket entry of the root
  { std::ofstream(gcs / "b" / "file") << "an object"; }
  struct Case {
    std::string job_dir;
    bool ok;
    std::string message;  // a part of the error's message
    std::string made;     // what must exist after, relative to `gcs`
  };
  for (const Case& c : {
           Case{"gs://b/new/deep", true, "", "b/new/deep"},
           Case{"gs://b//have/x/", true, "", "b/have/x"},
           Case{"gs://b", true, "", "b"},
           Case{"gs://b/link", false, "gs://b/link: link is a symbolic link", ""},
           Case{"gs://b/link/x", false, "link is a symbolic link", ""},
           Case{"gs://b/have/../link", false, "is not usable", ""},
           Case{"gs://b/file/x", false, "file is not a directory", ""},
           Case{"gs://missing/x", false, "is in bucket missing, which does not exist", ""},
           Case{"gs://alias/x", false, "is in bucket alias, which does not exist", ""},
           Case{(data_ / "local/dir").string(), true, "", "../local/dir"},
       }) {
    const Status made = MakeJobDir(c.job_dir, gcs.string());
    EXPECT_EQ(made.ok(), c.ok) << c.job_dir << ": " << made.message();
    if (!c.ok) {
      EXPECT_EQ(made.code(), Code::kFailedPrecondition) << c.job_dir;
      EXPECT_NE(made.message().find(c.message), std::string::npos) << made.message();
    } else {
      EXPECT_TRUE(fs::is_directory(fs::symlink_status(gcs / c.made))) << c.job_dir;
    }
  }
  EXPECT_TRUE(fs::is_empty(data_ / "outside"));
}

}  // namespace
}  // namespace trainyard::control
