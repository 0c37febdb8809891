// os::Dir: every entry reached beneath its descriptor, a link or a way out refused at any
// position (issue #31), names of one component only, and the effects themselves.
#include "os/dir.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "fakes/temp_dir_fixture.h"

namespace trainyard::os {
namespace {

namespace fs = std::filesystem;

// A tree with links at each depth, each leading to `outside`, which must stay as it is:
//   sub/plain, sub/deeper/file, sublink -> sub, sub/filelink -> outside/victim,
//   sub/dirlink -> outside, sub/deeper/last -> outside/victim
class DirTest : public ::trainyard::testing::TempDirTest {
 protected:
  void SetUp() override {
    fs::create_directories(root() / "sub" / "deeper");
    fs::create_directories(outside());
    Write(root() / "sub" / "plain", "plain");
    Write(root() / "sub" / "deeper" / "file", "deep");
    Write(outside() / "victim", "the victim's own text\n");
    fs::create_directory_symlink(root() / "sub", root() / "sublink");
    fs::create_symlink(outside() / "victim", root() / "sub" / "filelink");
    fs::create_directory_symlink(outside(), root() / "sub" / "dirlink");
    fs::create_symlink(outside() / "victim", root() / "sub" / "deeper" / "last");
    Result<Dir> dir = Dir::Open(root().string());
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_.emplace(*std::move(dir));
  }

  fs::path root() const { return temp_.path() / "root"; }
  fs::path outside() const { return temp_.path() / "outside"; }
  void ExpectOutsideUntouched() const {
    EXPECT_EQ(Read(outside() / "victim"), "the victim's own text\n");
    EXPECT_EQ(::trainyard::testing::EntryNames(outside()), std::set<std::string>{"victim"});
  }
  const Dir& dir() const { return *dir_; }

  std::optional<Dir> dir_;
};

struct BeneathCase {
  std::string relative;
  Code code;  // of opening it as a file for appending (creating it when missing)
};

// A link or ".." at each position of the path, an absolute path and an empty one: refused,
// whatever is asked of the entry, and nothing outside is read, written or made.
TEST_F(DirTest, ALinkOrAWayOutAtAnyPositionIsRefused) {
  for (const BeneathCase& c : {
           BeneathCase{"sub/plain", Code::kOk},
           BeneathCase{"sub/deeper/file", Code::kOk},
           BeneathCase{"sub/new", Code::kOk},
           BeneathCase{"sublink/plain", Code::kFailedPrecondition},       // first
           BeneathCase{"sub/dirlink/victim", Code::kFailedPrecondition},  // middle
           BeneathCase{"sub/filelink", Code::kFailedPrecondition},        // last
           BeneathCase{"sub/deeper/last", Code::kFailedPrecondition},     // last, deeper
           BeneathCase{"../outside/victim", Code::kFailedPrecondition},   // ".." first
           BeneathCase{"sub/../../outside/victim", Code::kFailedPrecondition},
           BeneathCase{"sub/deeper/../../../outside/victim", Code::kFailedPrecondition},
           BeneathCase{(outside() / "victim").string(), Code::kFailedPrecondition},
           BeneathCase{"", Code::kFailedPrecondition},
       }) {
    Result<File> file = dir().OpenFile(c.relative, OpenMode::kAppend);
    EXPECT_EQ(file.status().code(), c.code) << c.relative << ": " << file.status().message();
    if (file.ok()) {
      EXPECT_TRUE(file->Write("appended").ok()) << c.relative;
      continue;
    }
    EXPECT_NE(file.status().message().find(root().string()), std::string::npos)
        << file.status().message();
    EXPECT_FALSE(dir().OpenFile(c.relative, OpenMode::kRead).ok()) << c.relative;
    EXPECT_FALSE(dir().OpenDir(c.relative).ok()) << c.relative;
    Result<FileStatus> info = dir().Stat(c.relative);
    EXPECT_TRUE(!info.ok() || info->type == FileType::kSymlink) << c.relative;
    EXPECT_FALSE(dir().MakeDirs(c.relative + "/made", 0755).ok()) << c.relative;
  }
  ExpectOutsideUntouched();
  EXPECT_EQ(Read(root() / "sub" / "plain"), "plainappended");
}

TEST_F(DirTest, StatDescribesALinkInsteadOfFollowingIt) {
  for (const std::string relative : {"sublink", "sub/filelink", "sub/deeper/last"}) {
    Result<FileStatus> info = dir().Stat(relative);
    ASSERT_TRUE(info.ok()) << relative << ": " << info.status().ToString();
    EXPECT_EQ(info->type, FileType::kSymlink) << relative;
  }
  Result<FileStatus> plain = dir().Stat("sub/plain");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->regular());
  EXPECT_EQ(plain->size, 5);
  EXPECT_EQ(dir().Stat("sub/missing").status().code(), Code::kNotFound);
  EXPECT_EQ(dir().Stat("missing").status().code(), Code::kNotFound);
}

// Methods that take one entry's name refuse anything else before touching the file system.
TEST_F(DirTest, NamesAreOneComponent) {
  for (const std::string name : {"", ".", "..", "sub/plain", "/sub", "sub/"}) {
    EXPECT_EQ(dir().MakeDir(name, 0755).status().code(), Code::kInvalidArgument) << name;
    EXPECT_EQ(dir().Remove(name).code(), Code::kInvalidArgument) << name;
    EXPECT_EQ(dir().RemoveAll(name).code(), Code::kInvalidArgument) << name;
    EXPECT_EQ(dir().Rename(name, dir(), "x").code(), Code::kInvalidArgument) << name;
    EXPECT_EQ(dir().Rename("sub", dir(), name).code(), Code::kInvalidArgument) << name;
  }
  EXPECT_TRUE(fs::exists(root() / "sub" / "plain"));
}

TEST_F(DirTest, MakeDirMakesOrOpensButNeverThroughALinkOrAFile) {
  Result<Dir> made = dir().MakeDir("fresh", 0700);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ(made->path(), (root() / "fresh").string());
  EXPECT_TRUE(fs::is_directory(fs::symlink_status(root() / "fresh")));
  EXPECT_TRUE(dir().MakeDir("sub", 0700).ok());  // already there
  const Result<Dir> link = dir().MakeDir("sublink", 0700);
  EXPECT_EQ(link.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(link.status().message().find("sublink is a symbolic link"), std::string::npos)
      << link.status().message();
  Result<Dir> sub = dir().OpenDir("sub");
  ASSERT_TRUE(sub.ok());
  EXPECT_EQ(sub->MakeDir("plain", 0700).status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(sub->MakeDir("dirlink", 0700).status().code(), Code::kFailedPrecondition);
  ExpectOutsideUntouched();
}

TEST_F(DirTest, ListDescribesEveryEntryButDotAndDotDot) {
  Result<Dir> sub = dir().OpenDir("sub");
  ASSERT_TRUE(sub.ok());
  Result<std::vector<DirEntry>> entries = sub->List();
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  std::map<std::string, FileType> types;
  for (const DirEntry& entry : *entries) {
    types[entry.name] = entry.info.type;
  }
  EXPECT_EQ(types, (std::map<std::string, FileType>{{"plain", FileType::kRegular},
                                                    {"deeper", FileType::kDirectory},
                                                    {"filelink", FileType::kSymlink},
                                                    {"dirlink", FileType::kSymlink}}));
}

TEST_F(DirTest, RemoveAllRemovesATreeButNothingALinkInItLeadsTo) {
  ASSERT_TRUE(dir().RemoveAll("sub").ok());
  EXPECT_FALSE(fs::exists(fs::symlink_status(root() / "sub")));
  ExpectOutsideUntouched();
  EXPECT_TRUE(dir().RemoveAll("sub").ok());      // nothing there: nothing to do
  EXPECT_TRUE(dir().RemoveAll("sublink").ok());  // the link itself, now dangling
  EXPECT_FALSE(fs::exists(fs::symlink_status(root() / "sublink")));
}

TEST_F(DirTest, RemoveAndRenameActOnALinkNotOnWhatItLeadsTo) {
  Result<Dir> sub = dir().OpenDir("sub");
  ASSERT_TRUE(sub.ok());
  ASSERT_TRUE(sub->Rename("plain", *sub, "filelink").ok());  // replaces the link
  EXPECT_EQ(Read(root() / "sub" / "filelink"), "plain");
  EXPECT_FALSE(fs::is_symlink(root() / "sub" / "filelink"));
  ASSERT_TRUE(sub->Remove("dirlink").ok());
  EXPECT_EQ(sub->Remove("dirlink").code(), Code::kNotFound);
  EXPECT_EQ(sub->Remove("deeper").code(), Code::kFailedPrecondition);  // a directory
  ExpectOutsideUntouched();
}

TEST_F(DirTest, OpenRefusesALinkAsTheLastComponent) {
  EXPECT_EQ(Dir::Open((root() / "sublink").string()).status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(Dir::Open((root() / "sub" / "plain").string()).status().code(),
            Code::kFailedPrecondition);
  EXPECT_EQ(Dir::Open((root() / "missing").string()).status().code(), Code::kNotFound);
  EXPECT_EQ(Dir::OpenOrMake((root() / "sublink").string(), 0700).status().code(),
            Code::kFailedPrecondition);
}

TEST_F(DirTest, OpenOrMakeAndPermissions) {
  const std::string made = (root() / "made").string();
  const mode_t old_mask = ::umask(0);
  Result<Dir> dir = Dir::OpenOrMake(made, 0770);
  ::umask(old_mask);
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  Result<FileStatus> info = dir->Info();
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->directory());
  EXPECT_EQ(info->mode, 0770U);
  ASSERT_TRUE(dir->SetPermissions(0750).ok());
  EXPECT_EQ((fs::status(made).permissions() & fs::perms::mask), static_cast<fs::perms>(0750));
  EXPECT_TRUE(Dir::OpenOrMake(made, 0700).ok());  // already there
}

}  // namespace
}  // namespace trainyard::os
