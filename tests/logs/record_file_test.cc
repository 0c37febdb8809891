#include "logs/record_file.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/time_format.h"
#include "fakes/temp_dir.h"
#include "logs/log_record.h"

namespace trainyard::logs {
namespace {

using testing::TempDir;

std::string Ts(int seconds) {
  return FormatTimestampMicros(*ParseTimestamp("2026-11-21T09:35:00Z") +
                               std::chrono::seconds(seconds));
}

// A file of `runs` runs of `per_run` records sharing a timestamp (second i for run i), with a
// corrupt line after every 7th record; `starts` gets each run's first offset.
std::string WriteRuns(const TempDir& dir, int runs, int per_run,
                      std::vector<std::uint64_t>& starts) {
  std::string bytes;
  int n = 0;
  for (int run = 0; run < runs; ++run) {
    starts.push_back(bytes.size());
    for (int i = 0; i < per_run; ++i) {
      AppendRecord(bytes, Ts(run), Stream::kStdout, "record " + std::to_string(n));
      if (++n % 7 == 0) {
        bytes += "corrupt line\n";
      }
    }
  }
  bytes += "partial";
  std::string path = dir.File("a.log");
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(RecordFile, EndsAfterTheLastNewline) {
  TempDir dir;
  std::vector<std::uint64_t> starts;
  const std::string path = WriteRuns(dir, 3, 2, starts);
  Result<RecordFile> file = RecordFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->end(), std::filesystem::file_size(path) - std::string("partial").size());
  EXPECT_EQ(RecordFile::Open(dir.File("absent.log")).status().code(), Code::kNotFound);
}

// A log is served only as the regular file it is: not through a link a job put in its place
// (issue #31: a link to the audit log disclosed it through entries:list), nor a FIFO.
TEST(RecordFile, RefusesALinkOrAnythingButARegularFile) {
  TempDir dir;
  std::vector<std::uint64_t> starts;
  const std::string path = WriteRuns(dir, 1, 2, starts);
  std::filesystem::create_symlink(path, dir.File("link.log"));
  Result<RecordFile> linked = RecordFile::Open(dir.File("link.log"));
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.status().message().find("link.log"), std::string::npos);
  std::filesystem::create_directory(dir.File("dir.log"));
  EXPECT_FALSE(RecordFile::Open(dir.File("dir.log")).ok());
}

TEST(RecordFile, SeeksToTheFirstRecordAtOrAfterATimestamp) {
  TempDir dir;
  std::vector<std::uint64_t> starts;
  constexpr int kRuns = 3000;
  const std::string path = WriteRuns(dir, kRuns, 5, starts);  // ~150 KiB: several probes
  Result<RecordFile> file = RecordFile::Open(path);
  ASSERT_TRUE(file.ok());
  for (const int run : {0, 1, 2, 999, 1000, 1717, kRuns - 1}) {
    Result<std::uint64_t> at = file->Seek(Ts(run), /*strictly_after=*/false);
    Result<std::uint64_t> after = file->Seek(Ts(run), /*strictly_after=*/true);
    ASSERT_TRUE(at.ok() && after.ok());
    EXPECT_EQ(*at, starts[static_cast<std::size_t>(run)]) << run;
    const std::uint64_t next_run =
        run + 1 < kRuns ? starts[static_cast<std::size_t>(run) + 1] : file->end();
    EXPECT_EQ(*after, next_run) << run;
  }
  EXPECT_EQ(*file->Seek(Ts(-1), false), 0u);
  EXPECT_EQ(*file->Seek(Ts(kRuns), false), file->end());
}

TEST(RecordFile, FindsTheNextLineStart) {
  TempDir dir;
  std::vector<std::uint64_t> starts;
  const std::string path = WriteRuns(dir, 4, 1, starts);
  Result<RecordFile> file = RecordFile::Open(path);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(*file->NextLineStart(0), 0u);
  EXPECT_EQ(*file->NextLineStart(starts[2]), starts[2]);
  EXPECT_EQ(*file->NextLineStart(starts[1] + 1), starts[2]);
  EXPECT_EQ(*file->NextLineStart(starts[3] + 1), file->end());
  std::string scratch;
  EXPECT_EQ(*file->LineAt(starts[2], scratch), Ts(2) + " O record 2");
}

TEST(LineScan, BackwardIsForwardReversedAtAnyChunkSize) {
  TempDir dir;
  std::vector<std::uint64_t> starts;
  const std::string path = WriteRuns(dir, 40, 3, starts);
  Result<RecordFile> file = RecordFile::Open(path);
  ASSERT_TRUE(file.ok());
  const auto scan_all = [&](bool backward, std::size_t chunk) {
    std::vector<std::pair<std::uint64_t, std::string>> lines;
    LineScan scan(*file, starts[3], starts[30], backward, chunk);
    LineScan::Line line;
    for (Result<bool> more = scan.Next(line); more.ok() && *more; more = scan.Next(line)) {
      lines.emplace_back(line.offset, std::string(line.bytes));
    }
    return lines;
  };
  const auto forward = scan_all(false, 1 << 20);
  ASSERT_FALSE(forward.empty());
  EXPECT_EQ(forward.front().first, starts[3]);
  for (const std::size_t chunk : {1, 7, 64, 4096}) {
    EXPECT_EQ(scan_all(false, chunk), forward) << chunk;
    auto backward = scan_all(true, chunk);
    std::ranges::reverse(backward);
    EXPECT_EQ(backward, forward) << chunk;
  }
}

}  // namespace
}  // namespace trainyard::logs
