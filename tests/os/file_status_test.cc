// os/file_status.h on real files in a temporary directory.
#include "os/file_status.h"

#include <cerrno>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakes/temp_dir_fixture.h"
#include "os/unique_fd.h"

namespace trainyard::os {
namespace {

namespace fs = std::filesystem;

class FileStatusTest : public ::trainyard::testing::TempDirTest {
 protected:
  void SetUp() override {
    Write(At("file"), "12345");
    fs::create_directory(At("dir"));
    fs::create_symlink(At("file"), At("link"));
    ::mkfifo(At("fifo").c_str(), 0600);
  }
};

struct TypeCase {
  std::string name;
  FileType followed;  // StatPath's
  FileType itself;    // StatLink's
};

class FileTypeTest : public FileStatusTest, public ::testing::WithParamInterface<TypeCase> {};

TEST_P(FileTypeTest, StatPathFollowsALinkAndStatLinkDoesNot) {
  Result<FileStatus> followed = StatPath(At(GetParam().name));
  Result<FileStatus> itself = StatLink(At(GetParam().name));
  ASSERT_TRUE(followed.ok() && itself.ok());
  EXPECT_EQ(followed->type, GetParam().followed);
  EXPECT_EQ(itself->type, GetParam().itself);
}

INSTANTIATE_TEST_SUITE_P(Table, FileTypeTest,
                         ::testing::Values(TypeCase{"file", FileType::kRegular, FileType::kRegular},
                                           TypeCase{"dir", FileType::kDirectory,
                                                    FileType::kDirectory},
                                           TypeCase{"link", FileType::kRegular, FileType::kSymlink},
                                           TypeCase{"fifo", FileType::kOther, FileType::kOther}),
                         [](const auto& test) { return test.param.name; });

TEST_F(FileStatusTest, StatusIsTheSystemsOwnerModeIdentityAndSize) {
  ASSERT_EQ(::chmod(At("file").c_str(), 02754), 0);
  struct stat st {};
  ASSERT_EQ(::stat(At("file").c_str(), &st), 0);
  Result<FileStatus> got = StatPath(At("file"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->mode, 02754u);
  EXPECT_EQ(got->mode & kSetGroupIdBit, kSetGroupIdBit);
  EXPECT_EQ(got->uid, st.st_uid);
  EXPECT_EQ(got->gid, st.st_gid);
  EXPECT_EQ(got->device, st.st_dev);
  EXPECT_EQ(got->inode, st.st_ino);
  EXPECT_EQ(got->size, 5u);
  UniqueFd fd(::open(At("file").c_str(), O_RDONLY | O_CLOEXEC));
  Result<FileStatus> by_fd = StatFd(fd.get());
  ASSERT_TRUE(by_fd.ok());
  EXPECT_EQ(by_fd->inode, st.st_ino);
  EXPECT_EQ(by_fd->size, 5u);
}

TEST_F(FileStatusTest, ErrorsNameThePathAndGiveTheErrno) {
  int error = 0;
  Result<FileStatus> missing = StatPath(At("missing"), &error);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "cannot inspect " + At("missing") + ": No such file or directory");
  EXPECT_EQ(error, ENOENT);
  EXPECT_FALSE(StatLink(At("missing"), &error).ok());
  EXPECT_EQ(error, ENOENT);
  EXPECT_FALSE(StatFd(-1, &error).ok());
  EXPECT_EQ(error, EBADF);
  const Status mode = ChangeMode(At("missing"), 0600, &error);
  EXPECT_EQ(mode.message(),
            "cannot change the mode of " + At("missing") + ": No such file or directory");
  const Status group = ChangeGroup(At("missing"), 0, /*follow_link=*/true, &error);
  EXPECT_EQ(group.message(),
            "cannot change the group of " + At("missing") + ": No such file or directory");
  EXPECT_EQ(error, ENOENT);
  EXPECT_TRUE(StatPath(At("file"), &error).ok());
  EXPECT_EQ(error, 0);
}

TEST_F(FileStatusTest, ChangeModeSetsEveryModeBit) {
  ASSERT_TRUE(ChangeMode(At("dir"), kSetGroupIdBit | 0710).ok());
  EXPECT_EQ(StatPath(At("dir"))->mode, 02710u);
  ASSERT_TRUE(ChangeMode(At("link"), 0600).ok());  // through the link
  EXPECT_EQ(StatPath(At("file"))->mode, 0600u);
}

TEST_F(FileStatusTest, ChangeGroupFollowsALinkOnlyWhenAsked) {
  // Root may give any group (nogroup's, 65534); anyone else only its own, which shows less.
  const auto own = static_cast<unsigned>(::getegid());
  const unsigned other = ::geteuid() == 0 ? 65534u : own;
  ASSERT_TRUE(ChangeGroup(At("link"), other, /*follow_link=*/false).ok());
  EXPECT_EQ(StatLink(At("link"))->gid, other);
  EXPECT_EQ(StatPath(At("file"))->gid, own);  // the link's target is untouched
  ASSERT_TRUE(ChangeGroup(At("link"), other, /*follow_link=*/true).ok());
  EXPECT_EQ(StatPath(At("file"))->gid, other);
  EXPECT_EQ(StatPath(At("file"))->uid, static_cast<unsigned>(::geteuid()));  // owner unchanged
}

TEST_F(FileStatusTest, MakeDirectorySaysWhetherItMadeIt) {
  const unsigned old_mask = SetUmask(022);
  Result<bool> made = MakeDirectory(At("new"), 0750);
  EXPECT_EQ(SetUmask(old_mask), 022u);
  ASSERT_TRUE(made.ok());
  EXPECT_TRUE(*made);
  EXPECT_EQ(StatLink(At("new"))->mode, 0750u);
  EXPECT_FALSE(MakeDirectory(At("new"), 0700).value());
  EXPECT_FALSE(MakeDirectory(At("file"), 0700).value());  // something else: see StatLink
  int error = 0;
  Result<bool> below = MakeDirectory(At("missing/new"), 0700, &error);
  ASSERT_FALSE(below.ok());
  EXPECT_EQ(below.status().message(),
            "cannot create " + At("missing/new") + ": No such file or directory");
  EXPECT_EQ(error, ENOENT);
}

}  // namespace
}  // namespace trainyard::os
