// os/file.h on real files in a temporary directory.
#include "os/file.h"

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakes/temp_dir_fixture.h"

namespace trainyard::os {
namespace {

namespace fs = std::filesystem;

class FileTest : public ::trainyard::testing::TempDirTest {};

TEST_F(FileTest, ReadFileTextIsTheWholeFileOrNothing) {
  Write(At("a"), std::string("one\0two", 7));
  EXPECT_EQ(ReadFileText(At("a")), std::string("one\0two", 7));
  EXPECT_EQ(ReadFileText(At("missing")), std::nullopt);
}

TEST_F(FileTest, ReadAtMostStopsAtTheLimitOrTheEnd) {
  Write(At("a"), std::string(10000, 'x'));
  Result<UniqueFd> fd = OpenForReading(At("a"));
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  std::string text = "kept:";
  EXPECT_EQ(ReadAtMost(fd->get(), 6000, text), 0);
  EXPECT_EQ(text.size(), 5u + 6000u);  // more than one 4 KiB chunk, and no more than asked
  EXPECT_EQ(ReadAtMost(fd->get(), 100000, text), 0);
  EXPECT_EQ(text.size(), 5u + 10000u);  // the rest, then the end
  EXPECT_EQ(ReadAtMost(-1, 10, text), EBADF);
}

TEST_F(FileTest, WriteFullyWritesEverythingOrNamesTheErrno) {
  Result<UniqueFd> out = CreateNewFile(At("out"), 0600);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::string big(100000, 'y');
  EXPECT_EQ(WriteFully(out->get(), big), 0);
  EXPECT_EQ(Read(At("out")), big);
  EXPECT_EQ(WriteFully(-1, "x"), EBADF);
}

struct ReadAtCase {
  std::string name;
  std::uint64_t offset;
  std::size_t size;
  std::string got;
};

class ReadAtTest : public FileTest, public ::testing::WithParamInterface<ReadAtCase> {};

TEST_P(ReadAtTest, ReadsAtTheOffsetWithoutMovingIt) {
  Write(At("a"), "0123456789");
  Result<UniqueFd> fd = OpenForReading(At("a"));
  ASSERT_TRUE(fd.ok());
  std::string buffer(GetParam().size, '\0');
  std::size_t got = 99;
  EXPECT_EQ(ReadAt(fd->get(), GetParam().offset, std::span<char>(buffer), got), 0);
  EXPECT_EQ(buffer.substr(0, got), GetParam().got);
  std::string rest;  // the descriptor's own offset is still at the start
  EXPECT_EQ(ReadAtMost(fd->get(), 3, rest), 0);
  EXPECT_EQ(rest, "012");
}

INSTANTIATE_TEST_SUITE_P(Table, ReadAtTest,
                         ::testing::Values(ReadAtCase{"Start", 0, 4, "0123"},
                                           ReadAtCase{"Middle", 3, 4, "3456"},
                                           ReadAtCase{"PastTheEndIsShort", 8, 4, "89"},
                                           ReadAtCase{"AtTheEndIsEmpty", 10, 4, ""},
                                           ReadAtCase{"BeyondTheEndIsEmpty", 50, 4, ""}),
                         [](const auto& test) { return test.param.name; });

TEST_F(FileTest, ReadAtNamesTheErrno) {
  std::string buffer(4, '\0');
  std::size_t got = 99;
  EXPECT_EQ(ReadAt(-1, 0, std::span<char>(buffer), got), EBADF);
  EXPECT_EQ(got, 0u);
}

TEST_F(FileTest, OpenForReadingNamesThePathAndTheErrno) {
  int error = -1;
  Result<UniqueFd> fd = OpenForReading(At("missing"), &error);
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kNotFound);
  EXPECT_EQ(fd.status().message(), "cannot open " + At("missing") + ": No such file or directory");
  EXPECT_EQ(error, ENOENT);
  Write(At("a"), "x");
  EXPECT_TRUE(OpenForReading(At("a"), &error).ok());
  EXPECT_EQ(error, 0);
}

TEST_F(FileTest, CreateNewFileNeverTakesWhatWasThere) {
  Write(At("file"), "old");
  fs::create_symlink(At("file"), At("link"));
  fs::create_symlink(At("dangling-target"), At("dangling"));
  for (const std::string name : {"file", "link", "dangling"}) {
    int error = 0;
    Result<UniqueFd> fd = CreateNewFile(At(name), 0600, &error);
    EXPECT_FALSE(fd.ok()) << name;
    EXPECT_EQ(error, EEXIST) << name;
    EXPECT_EQ(fd.status().code(), Code::kAlreadyExists) << name;
    EXPECT_EQ(fd.status().message(), "cannot create " + At(name) + ": File exists") << name;
  }
  EXPECT_EQ(Read(At("file")), "old");
  EXPECT_FALSE(fs::exists(At("dangling-target")));  // the link was not followed to create it
  const mode_t old_mask = ::umask(022);
  Result<UniqueFd> made = CreateNewFile(At("new"), 0640);
  ::umask(old_mask);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(fs::status(At("new")).permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_NE(::fcntl(made->get(), F_GETFD) & FD_CLOEXEC, 0);
}

TEST_F(FileTest, RemoveFileRemovesAFileOrALinkButNoDirectory) {
  Write(At("file"), "x");
  fs::create_symlink(At("file"), At("link"));
  fs::create_directory(At("dir"));
  EXPECT_TRUE(RemoveFile(At("link")).ok());
  EXPECT_TRUE(fs::exists(At("file")));  // the link went, not what it led to
  EXPECT_TRUE(RemoveFile(At("file")).ok());
  EXPECT_FALSE(fs::exists(At("file")));
  int error = 0;
  const Status again = RemoveFile(At("file"), &error);
  EXPECT_EQ(again.message(), "cannot remove " + At("file") + ": No such file or directory");
  EXPECT_EQ(error, ENOENT);
  EXPECT_FALSE(RemoveFile(At("dir")).ok());
  EXPECT_TRUE(fs::is_directory(At("dir")));
}

TEST_F(FileTest, DuplicateIsAnotherCloseOnExecDescriptorOfTheSameFile) {
  Write(At("a"), "0123456789");
  Result<UniqueFd> fd = OpenForReading(At("a"));
  ASSERT_TRUE(fd.ok());
  Result<UniqueFd> copy = Duplicate(fd->get());
  ASSERT_TRUE(copy.ok());
  EXPECT_NE(copy->get(), fd->get());
  EXPECT_NE(::fcntl(copy->get(), F_GETFD) & FD_CLOEXEC, 0);
  std::string text;
  EXPECT_EQ(ReadAtMost(copy->get(), 4, text), 0);
  EXPECT_EQ(ReadAtMost(fd->get(), 4, text), 0);  // one open file: one offset
  EXPECT_EQ(text, "01234567");
  int error = 0;
  EXPECT_FALSE(Duplicate(-1, &error).ok());
  EXPECT_EQ(error, EBADF);
}

TEST_F(FileTest, AccessChecksFollowTheModes) {
  Write(At("script"), "#!/bin/sh\n");
  fs::permissions(At("script"), fs::perms::owner_all);
  Write(At("plain"), "x");
  fs::permissions(At("plain"), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_TRUE(IsExecutable("/bin/sh"));
  EXPECT_TRUE(IsExecutable(At("script")));
  EXPECT_FALSE(IsExecutable(At("missing")));
  EXPECT_TRUE(CanWriteIn(temp_.path().string()));
  EXPECT_FALSE(CanWriteIn(At("missing")));
  EXPECT_FALSE(IsExecutable(At("plain")));  // no x bit at all: not even for root
  if (::geteuid() != 0) {                   // root may write anywhere
    fs::create_directory(At("locked"));
    fs::permissions(At("locked"), fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_FALSE(CanWriteIn(At("locked")));
  }
}

}  // namespace
}  // namespace trainyard::os
