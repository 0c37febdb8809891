// os::File: only ever a regular file, never through a link, never blocking on a FIFO; positional
// reads, whole writes, copying a tail.
#include "os/file_handle.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "fakes/temp_dir_fixture.h"

namespace trainyard::os {
namespace {

namespace fs = std::filesystem;

class FileTest : public ::trainyard::testing::TempDirTest {
 protected:
  void SetUp() override {
    Write(At("victim"), "the victim's own text\n");
    Write(At("plain"), "0123456789");
    fs::create_symlink(At("victim"), At("link"));
    fs::create_directory(At("dir"));
    ASSERT_EQ(::mkfifo(At("fifo").c_str(), 0600), 0);
  }
};

struct OpenCase {
  std::string name;
  OpenMode mode;
  Code code;
};

// Each mode on each kind of entry. A FIFO is refused at once (the test would hang otherwise).
TEST_F(FileTest, OpensOnlyARegularFileAndNeverThroughALink) {
  for (const OpenCase& c : {
           OpenCase{"plain", OpenMode::kRead, Code::kOk},
           OpenCase{"plain", OpenMode::kAppend, Code::kOk},
           OpenCase{"plain", OpenMode::kReadAppend, Code::kOk},
           OpenCase{"plain", OpenMode::kCreateNew, Code::kAlreadyExists},
           OpenCase{"missing", OpenMode::kRead, Code::kNotFound},
           OpenCase{"new-append", OpenMode::kAppend, Code::kOk},
           OpenCase{"new-both", OpenMode::kReadAppend, Code::kOk},
           OpenCase{"new", OpenMode::kCreateNew, Code::kOk},
           OpenCase{"link", OpenMode::kRead, Code::kFailedPrecondition},
           OpenCase{"link", OpenMode::kAppend, Code::kFailedPrecondition},
           OpenCase{"link", OpenMode::kReadAppend, Code::kFailedPrecondition},
           OpenCase{"link", OpenMode::kCreateNew, Code::kAlreadyExists},
           OpenCase{"dir", OpenMode::kRead, Code::kFailedPrecondition},
           OpenCase{"fifo", OpenMode::kRead, Code::kFailedPrecondition},
           OpenCase{"missing/x", OpenMode::kAppend, Code::kNotFound},
       }) {
    Result<File> file = File::Open(At(c.name), c.mode);
    EXPECT_EQ(file.status().code(), c.code)
        << c.name << " " << static_cast<int>(c.mode) << ": " << file.status().message();
    if (!file.ok()) {
      EXPECT_NE(file.status().message().find(At(c.name)), std::string::npos)
          << file.status().message();
    }
  }
  EXPECT_EQ(Read(At("victim")), "the victim's own text\n");
  EXPECT_TRUE(fs::exists(At("new")));
}

TEST_F(FileTest, CreatesWithThePermissionsGiven) {
  const mode_t old_mask = ::umask(0);
  Result<File> file = File::Open(At("new"), OpenMode::kCreateNew, 0640);
  ::umask(old_mask);
  ASSERT_TRUE(file.ok());
  Result<FileStatus> info = file->Info();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->mode, 0640U);
  EXPECT_TRUE(info->regular());
  EXPECT_EQ(info->size, 0);
}

TEST_F(FileTest, ReadsAtAnOffsetAndFewerWhereTheFileEnds) {
  Result<File> file = File::Open(At("plain"), OpenMode::kRead);
  ASSERT_TRUE(file.ok());
  std::string out(4, '\0');
  Result<std::size_t> got = file->ReadAt(3, out.data(), out.size());
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 4U);
  EXPECT_EQ(out, "3456");
  got = file->ReadAt(8, out.data(), out.size());
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 2U);
  EXPECT_EQ(out.substr(0, 2), "89");
  got = file->ReadAt(20, out.data(), out.size());
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 0U);
}

TEST_F(FileTest, WritesAppendAndAreRefusedOnAFileOpenedForReading) {
  Result<File> file = File::Open(At("plain"), OpenMode::kAppend);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(file->Write("ab").ok());
  ASSERT_TRUE(file->Write("").ok());
  ASSERT_TRUE(file->Sync().ok());
  EXPECT_EQ(Read(At("plain")), "0123456789ab");
  Result<File> reader = File::Open(At("plain"), OpenMode::kRead);
  ASSERT_TRUE(reader.ok());
  const Status refused = reader->Write("x");
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find(At("plain")), std::string::npos) << refused.message();
  EXPECT_EQ(Read(At("plain")), "0123456789ab");
}

TEST_F(FileTest, CopyTailAppendsFromAnOffset) {
  Result<File> from = File::Open(At("plain"), OpenMode::kRead);
  Result<File> to = File::Open(At("victim"), OpenMode::kAppend);
  ASSERT_TRUE(from.ok() && to.ok());
  ASSERT_TRUE(CopyTail(*from, 6, *to).ok());
  EXPECT_EQ(Read(At("victim")), "the victim's own text\n6789");
  ASSERT_TRUE(CopyTail(*from, 10, *to).ok());  // nothing past the end
  EXPECT_EQ(Read(At("victim")), "the victim's own text\n6789");
}

}  // namespace
}  // namespace trainyard::os
