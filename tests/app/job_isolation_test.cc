// `--run-as`'s data directory (app/job_isolation.h): the package cache is the server's to
// write; the job user's group may only pass through it (issue #31). Needs root.
#include "app/job_isolation.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakes/temp_dir.h"

namespace trainyard::app {
namespace {

namespace fs = std::filesystem;

mode_t ModeOf(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(JobIsolationTest, ThePackageCacheIsTheServersToWriteEvenWhereAnOlderServerSharedIt) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to change groups";
  }
  ::trainyard::testing::TempDir dir;
  const fs::path data = dir.path() / "data";
  // As an older server left it: packages/ and leases/ writable by the group, a lock too.
  const fs::path packages = data / "packages";
  fs::create_directories(packages / "leases" / "k1");
  std::ofstream(packages / "k1.lock") << "";
  for (const fs::path& path : {packages, packages / "leases", packages / "leases" / "k1"}) {
    ASSERT_EQ(chmod(path.c_str(), S_ISGID | 0770), 0);
  }
  ASSERT_EQ(chmod((packages / "k1.lock").c_str(), 0660), 0);
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);

  const run::RunAs user{.name = "nobody", .uid = 65534, .gid = 65534, .home = "/nonexistent"};
  const mode_t umask_before = umask(022);
  const Status prepared = PrepareDataDirectory(data.string(), user);
  umask(umask_before);
  ASSERT_TRUE(prepared.ok()) << prepared.ToString();
  EXPECT_EQ(ModeOf(packages), static_cast<mode_t>(S_ISGID | 0710));
  EXPECT_EQ(ModeOf(packages / "k1.lock"), 0600U);
  EXPECT_EQ(ModeOf(packages / "leases"), 0700U);
  EXPECT_EQ(ModeOf(packages / "leases" / "k1"), 0700U);
  EXPECT_EQ(ModeOf(data / "buckets") & 0070, 0070U) << "buckets/ stay the group's";
}

}  // namespace
}  // namespace trainyard::app
