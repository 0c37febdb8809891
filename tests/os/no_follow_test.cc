#include "os/no_follow.h"

#include <filesystem>
#include <string>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakes/temp_dir_fixture.h"

namespace trainyard::os {
namespace {

namespace fs = std::filesystem;

// A fresh directory holding `victim` (a file a link could lead to) and room for links to it.
class NoFollowTest : public ::trainyard::testing::TempDirTest {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "sub");
    Write(victim(), "the victim's own text\n");
  }

  fs::path victim() const { return dir_ / "victim"; }

  const fs::path& dir_ = temp_.path();
};

TEST_F(NoFollowTest, OpenNoFollowRefusesALinkAsTheLastComponent) {
  fs::create_symlink(victim(), dir_ / "link");
  Result<UniqueFd> opened = OpenNoFollow(At("link"), O_WRONLY | O_APPEND);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find(At("link")), std::string::npos)
      << opened.status().message();
  EXPECT_TRUE(OpenNoFollow(victim().string(), O_RDONLY).ok());
  EXPECT_TRUE(OpenNoFollow(At("new"), O_WRONLY | O_CREAT, 0600).ok());
}

TEST_F(NoFollowTest, OpenBeneathRefusesLinksAnywhereAndLeavingTheDirectory) {
  fs::create_directory_symlink(dir_ / "sub", dir_ / "sublink");
  fs::create_symlink(victim(), dir_ / "sub" / "link");
  Write(dir_ / "sub" / "plain", "plain");
  const UniqueFd root(::open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(root.valid());
  struct Case {
    std::string relative;
    bool opens;
  };
  for (const Case& c : {Case{"sub/plain", true}, Case{"victim", true},
                        Case{"sublink/plain", false},  // a link in the middle
                        Case{"sub/link", false},       // a link at the end
                        Case{"../victim", false}, Case{"sub/../../victim", false},
                        Case{victim().string(), false},  // absolute
                        Case{"", false}}) {
    EXPECT_EQ(OpenBeneath(root.get(), c.relative, O_RDONLY).ok(), c.opens) << c.relative;
  }
}

TEST_F(NoFollowTest, MakeDirsBeneathCreatesDirectoriesButNeverThroughALink) {
  fs::create_directory_symlink(dir_ / "sub", dir_ / "sublink");
  fs::create_symlink(victim(), dir_ / "sub" / "filelink");
  const UniqueFd root(::open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(root.valid());
  struct Case {
    std::string relative;
    Code code;
    std::string message;  // a part of the error's message
  };
  for (const Case& c : {
           Case{"sub", Code::kOk, ""},
           Case{"sub/new/deeper", Code::kOk, ""},
           Case{"fresh", Code::kOk, ""},
           Case{"sublink", Code::kFailedPrecondition, "sublink is a symbolic link"},
           Case{"sublink/made", Code::kFailedPrecondition, "sublink is a symbolic link"},
           Case{"sub/filelink/x", Code::kFailedPrecondition, "sub/filelink is a symbolic link"},
           Case{"victim/x", Code::kFailedPrecondition, "victim is not a directory"},
           Case{"sub/../x", Code::kInvalidArgument, "sub/../x"},
           Case{"a//b", Code::kInvalidArgument, ""},
           Case{"", Code::kInvalidArgument, ""},
       }) {
    Result<UniqueFd> made = MakeDirsBeneath(root.get(), c.relative, 0755);
    EXPECT_EQ(made.status().code(), c.code) << c.relative << ": " << made.status().message();
    EXPECT_NE(made.status().message().find(c.message), std::string::npos) << c.relative;
    if (made.ok()) {
      EXPECT_TRUE(fs::is_directory(fs::symlink_status(dir_ / c.relative))) << c.relative;
    }
  }
  EXPECT_FALSE(fs::exists(dir_ / "sub" / "made"));  // nothing was made through the link
  EXPECT_EQ(Read(victim()), "the victim's own text\n");
}

TEST_F(NoFollowTest, ReplaceFileReplacesALinkInsteadOfWritingThroughIt) {
  fs::create_symlink(victim(), dir_ / "replicas.json");
  ASSERT_TRUE(ReplaceFileNoFollow(At("replicas.json"), "new text\n").ok());
  EXPECT_EQ(Read(victim()), "the victim's own text\n");
  EXPECT_FALSE(fs::is_symlink(dir_ / "replicas.json"));
  EXPECT_EQ(Read(dir_ / "replicas.json"), "new text\n");
  // The old fixed temporary name, planted as a link, is not used either.
  fs::create_symlink(victim(), dir_ / "replicas.json.tmp");
  ASSERT_TRUE(ReplaceFileNoFollow(At("replicas.json"), "newer\n").ok());
  EXPECT_EQ(Read(victim()), "the victim's own text\n");
  EXPECT_EQ(Read(dir_ / "replicas.json"), "newer\n");
}

TEST_F(NoFollowTest, ReplaceFileCreatesWithTheModeGiven) {
  const mode_t old_mask = ::umask(022);
  ASSERT_TRUE(ReplaceFileNoFollow(At("token"), "secret", 0640).ok());
  ::umask(old_mask);
  EXPECT_EQ(fs::status(dir_ / "token").permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_FALSE(ReplaceFileNoFollow(At("missing-dir/file"), "x").ok());
}

TEST_F(NoFollowTest, ReadRegularFileReadsOnlyRegularFilesWithinTheBound) {
  fs::create_symlink(victim(), dir_ / "link");
  ASSERT_EQ(::mkfifo(At("fifo").c_str(), 0600), 0);
  EXPECT_EQ(ReadRegularFile(victim().string(), 1024), "the victim's own text\n");
  EXPECT_EQ(ReadRegularFile(victim().string(), 22), "the victim's own text\n");  // exactly
  EXPECT_EQ(ReadRegularFile(victim().string(), 21), std::nullopt);               // too large
  EXPECT_EQ(ReadRegularFile(At("link"), 1024), std::nullopt);
  EXPECT_EQ(ReadRegularFile(At("fifo"), 1024), std::nullopt);  // and it did not block
  EXPECT_EQ(ReadRegularFile(At("sub"), 1024), std::nullopt);
  EXPECT_EQ(ReadRegularFile(At("missing"), 1024), std::nullopt);
}

}  // namespace
}  // namespace trainyard::os
