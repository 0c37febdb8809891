// os/atomic_file.h: new files whole or not at all, publishing under a name once, moving into
// place without following a link.
#include "os/atomic_file.h"

#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "fakes/temp_dir_fixture.h"

namespace trainyard::os {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::trainyard::testing::TempDirTest {
 protected:
  void SetUp() override { Write(At("victim"), "the victim's own text\n"); }
};

TEST_F(AtomicFileTest, WriteNewFileNeverReplacesOrFollowsWhatIsThere) {
  ASSERT_TRUE(WriteNewFile(At("new"), "bytes").ok());
  EXPECT_EQ(Read(At("new")), "bytes");
  EXPECT_EQ(WriteNewFile(At("new"), "other").code(), Code::kAlreadyExists);
  EXPECT_EQ(Read(At("new")), "bytes");
  fs::create_symlink(At("victim"), At("link"));
  EXPECT_EQ(WriteNewFile(At("link"), "through").code(), Code::kAlreadyExists);
  EXPECT_EQ(Read(At("victim")), "the victim's own text\n");
}

TEST_F(AtomicFileTest, PublishNewFileMakesTheFileOnceAndLeavesNoScratch) {
  const mode_t old_mask = ::umask(0);
  const Status published = PublishNewFile(At("key"), "first", 0600);
  ::umask(old_mask);
  ASSERT_TRUE(published.ok()) << published.ToString();
  EXPECT_EQ(Read(At("key")), "first");
  EXPECT_EQ(fs::status(At("key")).permissions() & fs::perms::mask, static_cast<fs::perms>(0600));
  const Status again = PublishNewFile(At("key"), "second", 0600);
  EXPECT_EQ(again.code(), Code::kAlreadyExists) << again.ToString();
  EXPECT_EQ(Read(At("key")), "first");
  fs::create_symlink(At("victim"), At("link"));
  EXPECT_EQ(PublishNewFile(At("link"), "through", 0600).code(), Code::kAlreadyExists);
  EXPECT_EQ(Read(At("victim")), "the victim's own text\n");
  EXPECT_EQ(::trainyard::testing::EntryNames(temp_.path()),
            (std::set<std::string>{"key", "link", "victim"}));
}

TEST_F(AtomicFileTest, MoveFileIntoReplacesALinkInsteadOfWritingThroughIt) {
  fs::create_directory(At("dir"));
  fs::create_symlink(At("victim"), At("dir/target"));
  Write(At("source"), "moved");
  Result<Dir> dir = Dir::Open(At("dir"));
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(MoveFileInto(At("source"), *dir, "target", temp_.path().string()).ok());
  EXPECT_FALSE(fs::is_symlink(At("dir/target")));
  EXPECT_EQ(Read(At("dir/target")), "moved");
  EXPECT_FALSE(fs::exists(At("source")));
  EXPECT_EQ(Read(At("victim")), "the victim's own text\n");
  EXPECT_EQ(MoveFileInto(At("source"), *dir, "again", temp_.path().string()).code(),
            Code::kNotFound);
  EXPECT_EQ(MoveFileInto(At("victim"), *dir, "../victim", temp_.path().string()).code(),
            Code::kInvalidArgument);
}

// Across file systems (/dev/shm is a tmpfs where there is one): copied, then the source removed.
TEST_F(AtomicFileTest, MoveFileIntoCopiesAcrossFileSystems) {
  struct stat here {};
  struct stat shm {};
  if (::stat("/dev/shm", &shm) != 0 || ::stat(temp_.path().c_str(), &here) != 0 ||
      here.st_dev == shm.st_dev) {
    GTEST_SKIP() << "no second file system to move from";
  }
  const std::string source = "/dev/shm/" + UniqueName("trainyard-move-test");
  Write(source, "from afar");
  fs::create_directory(At("scratch"));
  Result<Dir> dir = Dir::Open(temp_.path().string());
  ASSERT_TRUE(dir.ok());
  const Status moved = MoveFileInto(source, *dir, "arrived", At("scratch"));
  ASSERT_TRUE(moved.ok()) << moved.ToString();
  EXPECT_EQ(Read(At("arrived")), "from afar");
  EXPECT_FALSE(fs::exists(source));
  EXPECT_TRUE(fs::is_empty(At("scratch")));
}

TEST(UniqueName, NamesDifferAndCarryTheTag) {
  const std::string a = UniqueName("put");
  const std::string b = UniqueName("put");
  EXPECT_NE(a, b);
  EXPECT_TRUE(a.starts_with("put-")) << a;
}

}  // namespace
}  // namespace trainyard::os
