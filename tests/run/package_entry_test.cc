// Sealing a finished package install (run/local/package_entry.h): modes, and what is refused.
// Without a run-as user (these tests do not run as root), so owners do not change.
#include "run/local/package_entry.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakes/temp_dir.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::trainyard::testing::TempDir;

mode_t ModeOf(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

void MakeFile(const fs::path& path, mode_t mode) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "x";
  ASSERT_EQ(chmod(path.c_str(), mode), 0);
}

TEST(PackageEntryTest, TheInstallDirIsPrivateAndNew) {
  TempDir dir;
  const std::string install = dir.File("key.tmp-1");
  ASSERT_TRUE(CreateInstallDir(install, std::nullopt).ok());
  EXPECT_EQ(ModeOf(install), 0700U);
  EXPECT_FALSE(CreateInstallDir(install, std::nullopt).ok()) << "never one that exists";
}

TEST(PackageEntryTest, SealingTakesWriteAndSetIdBitsAwayAndLetsTheGroupRead) {
  struct Case {
    std::string name;
    mode_t mode;
    mode_t sealed;
  };
  const std::vector<Case> files = {
      {"world-writable", 0666, 0644},   {"private", 0600, 0640},
      {"group-writable", 0660, 0640},   {"executable", 0755, 0755},
      {"owner-executable", 0700, 0750}, {"set-user-id", 04755, 0755},
      {"set-group-id", 02775, 0755},    {"no-read", 0200, 0640},
  };
  TempDir dir;
  const fs::path install = dir.File("install");
  ASSERT_TRUE(CreateInstallDir(install.string(), std::nullopt).ok());
  for (const Case& c : files) {
    MakeFile(install / "pkg" / c.name, c.mode);
  }
  fs::create_directories(install / "open" / "sticky");
  fs::create_directories(install / "locked");
  ASSERT_EQ(chmod((install / "locked").c_str(), 0500), 0);
  ASSERT_EQ(chmod((install / "open").c_str(), 0777), 0);
  ASSERT_EQ(chmod((install / "open" / "sticky").c_str(), 01777), 0);
  // A link is not followed: what it names keeps its mode.
  MakeFile(dir.File("outside"), 0666);
  fs::create_symlink(dir.File("outside"), install / "pkg" / "link");

  const Status sealed = SealInstall(install.string(), std::nullopt);
  ASSERT_TRUE(sealed.ok()) << sealed.ToString();
  for (const Case& c : files) {
    EXPECT_EQ(ModeOf(install / "pkg" / c.name), c.sealed) << c.name;
  }
  EXPECT_EQ(ModeOf(install), 0750U);
  EXPECT_EQ(ModeOf(install / "pkg"), 0755U);  // as create_directories made it
  EXPECT_EQ(ModeOf(install / "open"), 0755U);
  EXPECT_EQ(ModeOf(install / "open" / "sticky"), 0755U);
  EXPECT_EQ(ModeOf(install / "locked"), 0750U) << "the server can evict what it holds";
  EXPECT_EQ(ModeOf(dir.File("outside")), 0666U);
}

TEST(PackageEntryTest, SealingRefusesWhatAnInstallerNeverLeaves) {
  struct Case {
    std::string name;
    void (*leave)(const fs::path& install, const fs::path& outside);
    std::string why;
  };
  const std::vector<Case> cases = {
      {"a hard link",
       [](const fs::path& install, const fs::path& outside) {
         fs::create_hard_link(outside, install / "lib" / "linked");
       },
       "more than one link"},
      {"a fifo",
       [](const fs::path& install, const fs::path&) {
         ASSERT_EQ(mkfifo((install / "lib" / "fifo").c_str(), 0600), 0);
       },
       "not a regular file"},
      {"a tree 130 directories deep",
       [](const fs::path& install, const fs::path&) {
         fs::path deep = install / "lib";
         for (int i = 0; i < 130; ++i) {
           deep /= "d";
         }
         fs::create_directories(deep);
       },
       "directories deep"},
  };
  for (const Case& c : cases) {
    TempDir dir;
    const fs::path install = dir.File("install");
    ASSERT_TRUE(CreateInstallDir(install.string(), std::nullopt).ok());
    fs::create_directories(install / "lib");
    MakeFile(dir.File("outside"), 0644);
    c.leave(install, dir.File("outside"));
    const Status sealed = SealInstall(install.string(), std::nullopt);
    EXPECT_EQ(sealed.code(), Code::kFailedPrecondition) << c.name;
    EXPECT_THAT(sealed.message(), HasSubstr(c.why)) << c.name;
  }
}

// As root (`serve --run-as`): the install dir is the user's, the sealed tree the server's with
// the user's group.
TEST(PackageEntryTest, WithARunAsUserTheInstallIsTheUsersUntilSealed) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to change owners";
  }
  const RunAs user{.name = "nobody", .uid = 65534, .gid = 65534, .home = "/nonexistent"};
  TempDir dir;
  const fs::path install = dir.File("install");
  ASSERT_TRUE(CreateInstallDir(install.string(), user).ok());
  struct stat st {};
  ASSERT_EQ(lstat(install.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534U);
  EXPECT_EQ(st.st_gid, 65534U);
  MakeFile(install / "lib" / "a.py", 0664);
  ASSERT_EQ(lchown((install / "lib").c_str(), 65534, 65534), 0);
  ASSERT_EQ(lchown((install / "lib" / "a.py").c_str(), 65534, 65534), 0);
  fs::create_symlink("a.py", install / "lib" / "b.py");
  ASSERT_EQ(lchown((install / "lib" / "b.py").c_str(), 65534, 65534), 0);

  const Status sealed = SealInstall(install.string(), user);
  ASSERT_TRUE(sealed.ok()) << sealed.ToString();
  for (const fs::path& path :
       {install, install / "lib", install / "lib" / "a.py", install / "lib" / "b.py"}) {
    ASSERT_EQ(lstat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, geteuid()) << path;
    EXPECT_EQ(st.st_gid, 65534U) << path;
  }
  EXPECT_EQ(ModeOf(install / "lib" / "a.py"), 0644U);
}

TEST(PackageEntryTest, AnInstallThatIsALinkIsNotSealed) {
  TempDir dir;
  fs::create_directories(dir.File("elsewhere"));
  fs::create_directory_symlink(dir.File("elsewhere"), dir.File("install"));
  EXPECT_FALSE(SealInstall(dir.File("install"), std::nullopt).ok());
}

}  // namespace
}  // namespace trainyard::run::local
