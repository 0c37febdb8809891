#include "logs/capture.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/time_format.h"
#include "fakes/fake_clock.h"
#include "fakes/temp_dir.h"
#include "logs/log_record.h"

namespace trainyard::logs {
namespace {

using std::chrono::milliseconds;
using ::trainyard::testing::FakeClock;
using ::trainyard::testing::TempDir;

constexpr Stream O = Stream::kStdout;
constexpr Stream E = Stream::kStderr;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Line {
  std::string timestamp;
  Stream stream;
  std::string text;
};

// The file's records; a line that is not one fails the test.
std::vector<Line> Records(const std::string& path) {
  std::vector<Line> lines;
  std::istringstream in(ReadFile(path));
  std::string line;
  while (std::getline(in, line)) {
    std::optional<LogRecord> record = ParseRecord(line);
    if (!record.has_value()) {
      ADD_FAILURE() << "not a record: " << line;
      continue;
    }
    lines.push_back({std::string(record->timestamp), record->stream, std::string(record->text)});
  }
  return lines;
}

// "O text\n" per record.
std::string Texts(const std::string& path) {
  std::string out;
  for (const Line& line : Records(path)) {
    out += std::string(1, static_cast<char>(line.stream)) + " " + line.text + "\n";
  }
  return out;
}

// How many write-family system calls this thread has made.
std::optional<long> WriteCalls() {
  std::ifstream in("/proc/thread-self/io");
  std::string key;
  long value = 0;
  while (in >> key >> value) {
    if (key == "syscw:") {
      return value;
    }
  }
  return std::nullopt;
}

class RecordWriterTest : public ::testing::Test {
 protected:
  RecordWriter Open() {
    Result<RecordWriter> writer = RecordWriter::Open(Path(), clock_);
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    return std::move(*writer);
  }
  std::string Path() const { return dir_.File("logs/master-replica-0.log"); }
  std::string Now() const { return FormatTimestampMicros(clock_.Now()); }

  TempDir dir_;
  FakeClock clock_;
};

struct Chunk {
  Stream stream;
  std::string bytes;
};

struct SplitCase {
  std::string name;
  std::vector<Chunk> feeds;
  std::string records;      // "O text\n" per record, after the feeds and before any Close
  std::string after_close;  // and after closing both streams
};

class SplitTest : public RecordWriterTest, public ::testing::WithParamInterface<SplitCase> {};

TEST_P(SplitTest, MakesOneRecordPerCompleteLine) {
  RecordWriter writer = Open();
  for (const Chunk& chunk : GetParam().feeds) {
    ASSERT_TRUE(writer.Feed(chunk.stream, chunk.bytes).ok());
  }
  EXPECT_EQ(Texts(Path()), GetParam().records);
  ASSERT_TRUE(writer.Close(O).ok());
  ASSERT_TRUE(writer.Close(E).ok());
  EXPECT_EQ(Texts(Path()), GetParam().records + GetParam().after_close);
}

INSTANTIATE_TEST_SUITE_P(
    Table, SplitTest,
    ::testing::Values(
        SplitCase{"OneLine", {{O, "hello\n"}}, "O hello\n", ""},
        SplitCase{"SeveralLinesInOneFeed", {{O, "a\nb\nc\n"}}, "O a\nO b\nO c\n", ""},
        SplitCase{"EmptyLinesAreRecords", {{O, "\n\nx\n"}}, "O \nO \nO x\n", ""},
        SplitCase{"PartialWaitsForItsEnd", {{O, "epoch 1"}, {O, "/10\n"}}, "O epoch 1/10\n", ""},
        SplitCase{"PartialOverThreeFeeds", {{O, "a"}, {O, "b"}, {O, "c\nd"}}, "O abc\n", "O d\n"},
        SplitCase{"StreamsKeepTheirOwnPartials",
                  {{O, "out-"}, {E, "err-"}, {E, "line\n"}, {O, "line\n"}},
                  "E err-line\nO out-line\n",
                  ""},
        SplitCase{"CloseEndsAPartialLine", {{E, "Traceback"}}, "", "E Traceback\n"},
        SplitCase{"CarriageReturnIsText", {{O, "50%\r100%\r\n"}}, "O 50%\r100%\r\n", ""},
        SplitCase{"BytesAreKeptAsTheyAre",
                  {{O, std::string("\xff\xfe\0x\n", 5)}},
                  std::string("O \xff\xfe\0x\n", 7),
                  ""},
        SplitCase{"EmptyFeedWritesNothing", {{O, ""}}, "", ""}),
    [](const auto& tc) { return tc.param.name; });

// The root supervisor writes a replica's log in a directory the job can see: a link planted as
// the log is refused, and the file it leads to stays as it was (issue #31).
TEST_F(RecordWriterTest, RefusesALinkAsTheLogAndLeavesItsTargetAlone) {
  const std::string victim = dir_.File("victim");
  std::ofstream(victim) << "root's own\n";
  std::filesystem::create_directories(std::filesystem::path(Path()).parent_path());
  std::filesystem::create_symlink(victim, Path());
  Result<RecordWriter> writer = RecordWriter::Open(Path(), clock_);
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find(Path()), std::string::npos);
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "root's own\n");
}

TEST_F(RecordWriterTest, EachFeedHasOneTimestampForAllItsLines) {
  RecordWriter writer = Open();
  const std::string first = Now();
  ASSERT_TRUE(writer.Feed(O, "a\nb\n").ok());
  clock_.Advance(milliseconds(5));
  const std::string second = Now();
  ASSERT_TRUE(writer.Feed(E, "c\nd\n").ok());
  std::vector<Line> lines = Records(Path());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].timestamp, first);
  EXPECT_EQ(lines[1].timestamp, first);
  EXPECT_EQ(lines[2].timestamp, second);
  EXPECT_EQ(lines[3].timestamp, second);
  EXPECT_NE(first, second);
}

TEST_F(RecordWriterTest, EachFeedIsOneWriteCall) {
#if defined(__SANITIZE_ADDRESS__)
  // ASan's runtime probes memory by write(2)s to a pipe of its own, from this thread.
  GTEST_SKIP() << "write(2) counts include the sanitizer's own under ASan";
#endif
  RecordWriter writer = Open();
  ASSERT_TRUE(writer.Feed(O, "warm up\n").ok());
  std::optional<long> before = WriteCalls();
  if (!before.has_value()) {
    GTEST_SKIP() << "no /proc/thread-self/io here";
  }
  std::string many;
  for (int i = 0; i < 1000; ++i) {
    many += "line " + std::to_string(i) + "\n";
  }
  ASSERT_TRUE(writer.Feed(O, many + "partial").ok());
  EXPECT_EQ(WriteCalls().value_or(-1) - *before, 1);
  ASSERT_TRUE(writer.Feed(E, "no line yet").ok());
  EXPECT_EQ(WriteCalls().value_or(-1) - *before, 1);  // nothing complete: nothing written
  EXPECT_EQ(Records(Path()).size(), 1001u);
}

// A write that fails part way, as on a full disk, leaves no torn record for the next one to
// continue. The file-size limit makes write(2) stop short, as ENOSPC does; it is set in a child,
// which reports in its exit code.
TEST_F(RecordWriterTest, AWriteCutShortLeavesNoTornRecord) {
  RecordWriter writer = Open();
  ASSERT_TRUE(writer.Feed(O, "before\n").ok());
  const auto size = static_cast<rlim_t>(std::filesystem::file_size(Path()));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    rlimit limit{};
    getrlimit(RLIMIT_FSIZE, &limit);
    const rlimit tight{.rlim_cur = size + 10, .rlim_max = limit.rlim_max};
    setrlimit(RLIMIT_FSIZE, &tight);
    const bool failed = !writer.Feed(O, std::string(100, 'x') + "\n").ok();
    setrlimit(RLIMIT_FSIZE, &limit);
    const bool after = writer.Feed(O, "after\n").ok();
    _exit(failed && after ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(Texts(Path()), "O before\nO after\n") << ReadFile(Path());
}

TEST_F(RecordWriterTest, LineOfExactlyTheLimitIsOneRecord) {
  RecordWriter writer = Open();
  const std::string text(kMaxTextBytes, 'x');
  ASSERT_TRUE(writer.Feed(O, text).ok());
  ASSERT_TRUE(writer.Feed(O, "\n").ok());
  std::vector<Line> lines = Records(Path());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, text);
}

TEST_F(RecordWriterTest, LongLineIsSplitAtTheLimit) {
  RecordWriter writer = Open();
  const std::string text = std::string(kMaxTextBytes, 'a') + std::string(kMaxTextBytes, 'b') + "c";
  ASSERT_TRUE(writer.Feed(E, text + "\nnext\n").ok());
  std::vector<Line> lines = Records(Path());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].text, std::string(kMaxTextBytes, 'a'));
  EXPECT_EQ(lines[1].text, std::string(kMaxTextBytes, 'b'));
  EXPECT_EQ(lines[2].text, "c");
  EXPECT_EQ(lines[3].text, "next");
}

TEST_F(RecordWriterTest, LongPartialLineIsWrittenOnceItPassesTheLimit) {
  RecordWriter writer = Open();
  const std::string half(kMaxTextBytes / 2, 'p');
  ASSERT_TRUE(writer.Feed(O, half).ok());
  ASSERT_TRUE(writer.Feed(O, half).ok());
  EXPECT_TRUE(Records(Path()).empty());  // exactly the limit: it may still end here
  ASSERT_TRUE(writer.Feed(O, "q").ok());
  std::vector<Line> lines = Records(Path());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, half + half);
  ASSERT_TRUE(writer.Feed(O, "r\n").ok());
  lines = Records(Path());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].text, "qr");
}

TEST_F(RecordWriterTest, PartialPlusLineOverTheLimitIsSplit) {
  RecordWriter writer = Open();
  ASSERT_TRUE(writer.Feed(O, std::string(10, 'p')).ok());
  ASSERT_TRUE(writer.Feed(O, std::string(kMaxTextBytes, 'l') + "\n").ok());
  std::vector<Line> lines = Records(Path());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, std::string(10, 'p') + std::string(kMaxTextBytes - 10, 'l'));
  EXPECT_EQ(lines[1].text, std::string(10, 'l'));
}

TEST_F(RecordWriterTest, TimestampsNeverGoBackWhenTheClockDoes) {
  RecordWriter writer = Open();
  clock_.Advance(milliseconds(1000));
  const std::string later = Now();
  ASSERT_TRUE(writer.Feed(O, "first\n").ok());
  clock_.Advance(milliseconds(-600));  // the wall clock was stepped back
  ASSERT_TRUE(writer.Feed(O, "second\n").ok());
  ASSERT_TRUE(writer.WriteLine(E, "third").ok());
  for (const Line& line : Records(Path())) {
    EXPECT_EQ(line.timestamp, later) << line.text;
  }
}

TEST_F(RecordWriterTest, ReopeningKeepsTimestampsIncreasing) {
  clock_.Advance(milliseconds(60'000));
  const std::string last = Now();
  {
    RecordWriter writer = Open();
    ASSERT_TRUE(writer.Feed(O, "before the restart\n").ok());
  }
  FakeClock behind;  // a minute behind the first writer's
  Result<RecordWriter> reopened = RecordWriter::Open(Path(), behind);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  ASSERT_TRUE(reopened->Feed(O, "after\n").ok());
  std::vector<Line> lines = Records(Path());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].text, "after");
  EXPECT_EQ(lines[1].timestamp, last);
}

TEST_F(RecordWriterTest, ReopeningFindsTheLastRecordBehindAVeryLongOne) {
  clock_.Advance(milliseconds(60'000));
  const std::string last = Now();
  {
    RecordWriter writer = Open();
    ASSERT_TRUE(writer.Feed(O, std::string(kMaxTextBytes, 'x') + "\n").ok());
  }
  FakeClock behind;
  Result<RecordWriter> reopened = RecordWriter::Open(Path(), behind);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  ASSERT_TRUE(reopened->WriteLine(O, "after").ok());
  EXPECT_EQ(Records(Path()).back().timestamp, last);
}

TEST_F(RecordWriterTest, ReopeningEndsATornRecord) {
  clock_.Advance(milliseconds(60'000));
  const std::string last = Now();
  {
    RecordWriter writer = Open();
    ASSERT_TRUE(writer.Feed(O, "whole\n").ok());
  }
  std::ofstream(Path(), std::ios::app) << last << " O torn by a full dis";
  FakeClock behind;
  Result<RecordWriter> reopened = RecordWriter::Open(Path(), behind);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  ASSERT_TRUE(reopened->Feed(E, "after\n").ok());
  std::vector<Line> lines = Records(Path());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1].text, "torn by a full dis");
  EXPECT_EQ(lines[2].text, "after");
  EXPECT_EQ(lines[2].timestamp, last);
}

TEST_F(RecordWriterTest, OpenCreatesTheDirectoryAndAppends) {
  std::filesystem::create_directories(std::filesystem::path(Path()).parent_path());
  std::ofstream(Path()) << Now() << " O earlier\n";
  RecordWriter writer = Open();
  ASSERT_TRUE(writer.WriteLine(O, "later").ok());
  EXPECT_EQ(Texts(Path()), "O earlier\nO later\n");
  Result<RecordWriter> fresh = RecordWriter::Open(dir_.File("new/dir/service.log"), clock_);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_TRUE(std::filesystem::exists(dir_.File("new/dir/service.log")));
}

TEST_F(RecordWriterTest, OpenFailureNamesThePath) {
  std::ofstream(dir_.File("plain")) << "a file, not a directory";
  Result<RecordWriter> writer = RecordWriter::Open(dir_.File("plain/x.log"), clock_);
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().code(), Code::kInternal);
  EXPECT_NE(writer.status().message().find(dir_.File("plain")), std::string::npos)
      << writer.status().message();
}

TEST_F(RecordWriterTest, WriteLineSplitsLongAndMultiLineTexts) {
  RecordWriter writer = Open();
  ASSERT_TRUE(writer.Feed(O, "pending").ok());
  ASSERT_TRUE(writer.WriteLine(E, "").ok());
  ASSERT_TRUE(writer.WriteLine(E, "one\ntwo").ok());
  ASSERT_TRUE(writer.WriteLine(E, std::string(kMaxTextBytes + 1, 'z')).ok());
  std::vector<Line> lines = Records(Path());
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0].text, "");
  EXPECT_EQ(lines[1].text, "one");
  EXPECT_EQ(lines[2].text, "two");
  EXPECT_EQ(lines[3].text.size(), kMaxTextBytes);
  EXPECT_EQ(lines[4].text, "z");
  ASSERT_TRUE(writer.Close(O).ok());  // a feed's partial line is untouched by WriteLine
  EXPECT_EQ(Records(Path()).back().text, "pending");
}

}  // namespace
}  // namespace trainyard::logs
