#include "logs/log_reader.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "base/time_format.h"
#include "fakes/temp_dir.h"
#include "logs/log_record.h"

namespace trainyard::logs {
namespace {

using testing::TempDir;

const WallTime kBase = *ParseTimestamp("2026-11-21T09:35:01Z");

// The record timestamp `micros` microseconds after kBase.
std::string Ts(std::int64_t micros) {
  return FormatTimestampMicros(kBase + std::chrono::microseconds(micros));
}

// What a reader should return for one record.
struct Expected {
  std::string timestamp;
  std::string insert_id;
  std::string text;
  auto Key() const { return std::tie(timestamp, insert_id); }
};

// Record files under `<dir>/logs`, built in memory, and the entries they hold.
class LogFiles {
 public:
  explicit LogFiles(const TempDir& dir) : logs_dir_(dir.File("logs")) {}

  // Appends a record to `<logs>/<file>.log`. The file's name is its source's insertId suffix
  // ("trial-3/master-replica-0" for a trial's).
  void Add(const std::string& file, const std::string& timestamp, const std::string& text,
           Stream stream = Stream::kStdout) {
    std::string& bytes = files_[file];
    expected_.push_back({timestamp, InsertId(bytes.size(), file), text});
    AppendRecord(bytes, timestamp, stream, text);
  }
  // Raw bytes, counted in no entry (a corrupt line, a partial record).
  void AddRaw(const std::string& file, const std::string& bytes) { files_[file] += bytes; }

  void Write() {
    for (const auto& [file, bytes] : files_) {
      const std::filesystem::path path = std::filesystem::path(logs_dir_) / (file + ".log");
      std::filesystem::create_directories(path.parent_path());
      std::ofstream(path, std::ios::binary) << bytes;
    }
    sources_ = ListSources(logs_dir_, "p", "job_1");
  }

  const std::string& logs_dir() const { return logs_dir_; }
  const std::vector<LogSource>& sources() const { return sources_; }

  // The entries in ascending (timestamp, insertId) order.
  std::vector<Expected> Ascending() const {
    std::vector<Expected> sorted = expected_;
    std::ranges::sort(sorted,
                      [](const Expected& a, const Expected& b) { return a.Key() < b.Key(); });
    return sorted;
  }

 private:
  std::string logs_dir_;
  std::map<std::string, std::string> files_;
  std::vector<Expected> expected_;
  std::vector<LogSource> sources_;
};

std::vector<Expected> Simplify(const std::vector<LogEntry>& entries) {
  std::vector<Expected> out;
  out.reserve(entries.size());
  for (const LogEntry& entry : entries) {
    out.push_back({entry.timestamp, entry.insert_id, entry.text});
  }
  return out;
}

bool operator==(const Expected& a, const Expected& b) {
  return std::tie(a.timestamp, a.insert_id, a.text) == std::tie(b.timestamp, b.insert_id, b.text);
}

void PrintTo(const Expected& e, std::ostream* os) {
  *os << e.timestamp << " " << e.insert_id << " " << e.text;
}

ReadResult Read(const LogFiles& files, ReadRequest request) {
  request.sources = &files.sources();
  Result<ReadResult> result = ReadEntries(request);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *std::move(result) : ReadResult{};
}

// Pages through everything `request` selects, `limit` entries at a time, following the cursor.
std::vector<Expected> ReadAllPages(const LogFiles& files, ReadRequest request, int* pages) {
  std::vector<Expected> all;
  *pages = 0;
  while (true) {
    ReadResult page = Read(files, request);
    ++*pages;
    const std::vector<Expected> got = Simplify(page.entries);
    all.insert(all.end(), got.begin(), got.end());
    if (!page.more || page.entries.empty() || *pages > 100'000) {
      return all;
    }
    request.after = Cursor{page.entries.back().timestamp, page.entries.back().insert_id};
  }
}

// Three sources whose records share timestamps: each batch of `n` lines per source gets one.
void AddInterleaved(LogFiles& files, int lines, int batch) {
  const std::vector<std::string> tasks = {"master-replica-0", "worker-replica-0",
                                          "worker-replica-1"};
  for (int i = 0; i < lines; ++i) {
    const std::string& task = tasks[static_cast<std::size_t>(i) % tasks.size()];
    files.Add(task, Ts(std::int64_t{i} / batch * 10), "line " + std::to_string(i));
  }
}

TEST(ListSources, FindsReplicasTheServiceAndTrials) {
  TempDir dir;
  LogFiles files(dir);
  files.Add("worker-replica-0", Ts(0), "w");
  files.Add("master-replica-0", Ts(0), "m");
  files.Add("service", Ts(0), "s");
  files.Add("trial-10/master-replica-0", Ts(0), "t10");
  files.Add("trial-2/master-replica-0", Ts(0), "t2");
  files.AddRaw("notes", "");  // notes.log: an empty source is still a source
  files.Write();
  std::ofstream(dir.File("logs/readme.txt")) << "not a log";
  std::filesystem::create_directories(dir.File("logs/trial-x"));
  std::ofstream(dir.File("logs/trial-x/master-replica-0.log")) << "";

  const std::vector<LogSource> sources = ListSources(files.logs_dir(), "p", "job_1");
  std::vector<std::tuple<std::string, std::string, bool>> got;
  for (const LogSource& source : sources) {
    EXPECT_EQ(source.project, "p");
    EXPECT_EQ(source.job_id, "job_1");
    EXPECT_TRUE(source.path.ends_with(".log")) << source.path;
    got.emplace_back(source.task_name, source.trial_id, source.service);
  }
  EXPECT_EQ(got, (std::vector<std::tuple<std::string, std::string, bool>>{
                     {"master-replica-0", "", false},
                     {"master-replica-0", "2", false},
                     {"master-replica-0", "10", false},
                     {"notes", "", false},
                     {"service", "", true},
                     {"worker-replica-0", "", false}}));
}

TEST(ListSources, AbsentDirectoryHasNone) {
  TempDir dir;
  EXPECT_TRUE(ListSources(dir.File("nope"), "p", "j").empty());
}

TEST(ReadEntries, MergesSourcesByTimestampThenInsertId) {
  TempDir dir;
  LogFiles files(dir);
  AddInterleaved(files, 60, 7);
  files.Add("trial-3/master-replica-0", Ts(0), "trial line");
  files.Write();

  const ReadResult result = Read(files, {});
  EXPECT_FALSE(result.more);
  EXPECT_EQ(Simplify(result.entries), files.Ascending());
  for (std::size_t i = 1; i < result.entries.size(); ++i) {
    const LogEntry& a = result.entries[i - 1];
    const LogEntry& b = result.entries[i];
    EXPECT_TRUE(std::tie(a.timestamp, a.insert_id) < std::tie(b.timestamp, b.insert_id)) << i;
  }
  const auto trial = std::ranges::find(result.entries, "trial line", &LogEntry::text);
  ASSERT_NE(trial, result.entries.end());
  EXPECT_EQ(trial->source->trial_id, "3");
  EXPECT_EQ(trial->insert_id, "0000000000000000-trial-3/master-replica-0");
}

TEST(ReadEntries, ContinuesAfterACursorAmongEqualTimestamps) {
  TempDir dir;
  LogFiles files(dir);
  AddInterleaved(files, 30, 30);  // every line has the same timestamp
  files.Write();
  const std::vector<Expected> all = files.Ascending();

  const ReadResult first = Read(files, {.limit = 11});
  ASSERT_EQ(first.entries.size(), 11u);
  EXPECT_TRUE(first.more);
  const LogEntry& last = first.entries.back();
  const ReadResult rest = Read(files, {.after = Cursor{last.timestamp, last.insert_id}});
  EXPECT_EQ(Simplify(rest.entries), std::vector<Expected>(all.begin() + 11, all.end()));
}

// gcloud's follow-up poll: timestamp>=TS, then ((timestamp="TS" AND insertId>"IID") OR
// timestamp>"TS") as the filter, with no cursor.
TEST(ReadEntries, AnswersTheGcloudFollowUpPoll) {
  TempDir dir;
  LogFiles files(dir);
  AddInterleaved(files, 90, 9);
  files.Write();
  const std::vector<Expected> all = files.Ascending();
  const Expected& last_seen = all[40];

  const ReadResult poll = Read(files, {.matches =
                                           [&](const LogEntry& e) {
                                             return (e.timestamp == last_seen.timestamp &&
                                                     e.insert_id > last_seen.insert_id) ||
                                                    e.timestamp > last_seen.timestamp;
                                           },
                                       .min_time = ParseTimestamp(last_seen.timestamp)});
  EXPECT_EQ(Simplify(poll.entries), std::vector<Expected>(all.begin() + 41, all.end()));
}

class PagingTest : public ::testing::TestWithParam<Order> {};

TEST_P(PagingTest, Pages100000LinesWithNoLossOrDuplicate) {
  TempDir dir;
  LogFiles files(dir);
  AddInterleaved(files, 100'000, 2500);  // runs of 2500 equal timestamps span pages
  files.Write();
  std::vector<Expected> expected = files.Ascending();
  if (GetParam() == Order::kDescending) {
    std::ranges::reverse(expected);
  }
  int pages = 0;
  const std::vector<Expected> got =
      ReadAllPages(files, {.order = GetParam(), .limit = 1000}, &pages);
  EXPECT_EQ(pages, 100);
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

INSTANTIATE_TEST_SUITE_P(Orders, PagingTest,
                         ::testing::Values(Order::kAscending, Order::kDescending),
                         [](const auto& tc) {
                           return tc.param == Order::kAscending ? "Ascending" : "Descending";
                         });

TEST(ReadEntries, DescendingIsTheReverseAndHonoursACursor) {
  TempDir dir;
  LogFiles files(dir);
  AddInterleaved(files, 50, 4);
  files.Write();
  std::vector<Expected> expected = files.Ascending();
  std::ranges::reverse(expected);

  const ReadResult first = Read(files, {.order = Order::kDescending, .limit = 9});
  EXPECT_EQ(Simplify(first.entries), std::vector<Expected>(expected.begin(), expected.begin() + 9));
  const LogEntry& last = first.entries.back();
  const ReadResult rest =
      Read(files, {.after = Cursor{last.timestamp, last.insert_id}, .order = Order::kDescending});
  EXPECT_EQ(Simplify(rest.entries), std::vector<Expected>(expected.begin() + 9, expected.end()));
}

TEST(ReadEntries, ACursorThatIsNotOurInsertIdStillBoundsByTimestamp) {
  TempDir dir;
  LogFiles files(dir);
  AddInterleaved(files, 12, 3);
  files.Write();
  const std::vector<Expected> all = files.Ascending();
  // "zzz" sorts after every insertId of ours: nothing at that timestamp comes after it.
  const ReadResult rest = Read(files, {.after = Cursor{all[4].timestamp, "zzz"}});
  EXPECT_EQ(Simplify(rest.entries), std::vector<Expected>(all.begin() + 6, all.end()));
}

struct BoundsCase {
  std::string name;
  std::optional<std::int64_t> min_micros;
  std::optional<std::int64_t> max_micros;
  Order order;
};

class TimeBoundsTest : public ::testing::TestWithParam<BoundsCase> {};

TEST_P(TimeBoundsTest, ReturnsExactlyTheRecordsInRange) {
  const BoundsCase& c = GetParam();
  TempDir dir;
  LogFiles files(dir);
  for (int i = 0; i < 20'000; ++i) {  // two files, 2 ms apart, large enough to binary-search
    files.Add(i % 2 == 0 ? "master-replica-0" : "worker-replica-0", Ts(std::int64_t{i} * 2000),
              "x");
  }
  files.Write();
  const auto time = [](std::optional<std::int64_t> micros) -> std::optional<WallTime> {
    if (!micros.has_value()) {
      return std::nullopt;
    }
    return kBase + std::chrono::microseconds(*micros);
  };
  std::vector<Expected> expected;
  for (const Expected& e : files.Ascending()) {
    const WallTime t = *ParseTimestamp(e.timestamp);
    if ((!c.min_micros || t >= *time(c.min_micros)) &&
        (!c.max_micros || t <= *time(c.max_micros))) {
      expected.push_back(e);
    }
  }
  if (c.order == Order::kDescending) {
    std::ranges::reverse(expected);
  }
  const ReadResult got = Read(files, {.min_time = time(c.min_micros),
                                      .max_time = time(c.max_micros),
                                      .order = c.order,
                                      .limit = 100'000});
  EXPECT_EQ(got.entries.size(), expected.size());
  EXPECT_TRUE(Simplify(got.entries) == expected);
}

INSTANTIATE_TEST_SUITE_P(
    Seeks, TimeBoundsTest,
    ::testing::Values(BoundsCase{"MinOnly", 12'345'678, std::nullopt, Order::kAscending},
                      BoundsCase{"MaxOnly", std::nullopt, 7'000'000, Order::kAscending},
                      BoundsCase{"BothOnRecords", 10'000'000, 10'010'000, Order::kAscending},
                      BoundsCase{"BothDescending", 20'000'500, 30'000'500, Order::kDescending},
                      BoundsCase{"BeforeEverything", -5'000'000, -1, Order::kAscending},
                      BoundsCase{"AfterEverything", 50'000'000, std::nullopt, Order::kDescending},
                      BoundsCase{"WholeRange", -1, 40'000'000, Order::kDescending}),
    [](const auto& tc) { return tc.param.name; });

TEST(ReadEntries, IgnoresAPartialTrailingRecord) {
  TempDir dir;
  LogFiles files(dir);
  files.Add("master-replica-0", Ts(0), "whole");
  files.AddRaw("master-replica-0", Ts(1) + " O still being writ");
  files.Write();
  for (const Order order : {Order::kAscending, Order::kDescending}) {
    const ReadResult result = Read(files, {.order = order});
    EXPECT_EQ(Simplify(result.entries), files.Ascending());
  }
}

TEST(ReadEntries, SkipsCorruptLines) {
  TempDir dir;
  LogFiles files(dir);
  files.AddRaw("master-replica-0", "garbage at the start\n");
  files.Add("master-replica-0", Ts(0), "one");
  files.AddRaw("master-replica-0", "2026-11-21T09:35:01.000001Z X bad stream\n\n");
  files.Add("master-replica-0", Ts(2), "two");
  files.AddRaw("master-replica-0", std::string(3 << 20, 'z') + "\n");  // over-long, no record
  files.Add("master-replica-0", Ts(3), "three");
  files.Write();
  for (const Order order : {Order::kAscending, Order::kDescending}) {
    std::vector<Expected> expected = files.Ascending();
    if (order == Order::kDescending) {
      std::ranges::reverse(expected);
    }
    EXPECT_EQ(Simplify(Read(files, {.order = order}).entries), expected);
  }
  const ReadResult bounded = Read(files, {.min_time = ParseTimestamp(Ts(1))});
  const std::vector<Expected> all = files.Ascending();
  EXPECT_EQ(Simplify(bounded.entries), std::vector<Expected>(all.begin() + 1, all.end()));
}

TEST(ReadEntries, MakesTextValidUtf8) {
  TempDir dir;
  LogFiles files(dir);
  files.Add("master-replica-0", Ts(0), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  files.Add("master-replica-0", Ts(1), "bad \xFF end \xC3");
  files.Add("master-replica-0", Ts(2), "surrogate \xED\xA0\x80 overlong \xC0\xAF");
  files.Write();
  const ReadResult result = Read(files, {});
  ASSERT_EQ(result.entries.size(), 3u);
  EXPECT_EQ(result.entries[0].text, "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(result.entries[1].text, "bad \xEF\xBF\xBD end \xEF\xBF\xBD");
  EXPECT_EQ(result.entries[2].text,
            "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD overlong \xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(ReadEntries, GivesEachEntryItsSeverityAndSource) {
  TempDir dir;
  LogFiles files(dir);
  files.Add("master-replica-0", Ts(0), "plain");
  files.Add("master-replica-0", Ts(1), "Traceback", Stream::kStderr);
  files.Add("master-replica-0", Ts(2), "WARNING:root:careful", Stream::kStderr);
  files.Add("service", Ts(3), "WARNING:looks like a level");
  files.Write();
  const ReadResult result = Read(files, {});
  std::vector<std::pair<Severity, std::string>> got;
  for (const LogEntry& entry : result.entries) {
    got.emplace_back(entry.severity, entry.source->task_name);
  }
  EXPECT_EQ(got,
            (std::vector<std::pair<Severity, std::string>>{{Severity::kInfo, "master-replica-0"},
                                                           {Severity::kError, "master-replica-0"},
                                                           {Severity::kWarning, "master-replica-0"},
                                                           {Severity::kInfo, "service"}}));
}

struct LimitCase {
  std::string name;
  int matching;  // how many entries match
  std::size_t limit;
  std::size_t returned;
  bool more;
};

class LimitTest : public ::testing::TestWithParam<LimitCase> {};

TEST_P(LimitTest, SaysWhetherAFurtherEntryMatched) {
  const LimitCase& c = GetParam();
  TempDir dir;
  LogFiles files(dir);
  for (int i = 0; i < 20; ++i) {
    files.Add("master-replica-0", Ts(i), i < c.matching ? "match" : "other");
  }
  files.Write();
  const ReadResult result = Read(
      files, {.matches = [](const LogEntry& e) { return e.text == "match"; }, .limit = c.limit});
  EXPECT_EQ(result.entries.size(), c.returned);
  EXPECT_EQ(result.more, c.more);
}

INSTANTIATE_TEST_SUITE_P(Limits, LimitTest,
                         ::testing::Values(LimitCase{"FewerThanLimit", 3, 5, 3, false},
                                           LimitCase{"ExactlyLimit", 5, 5, 5, false},
                                           LimitCase{"MoreThanLimit", 6, 5, 5, true},
                                           LimitCase{"NoneMatch", 0, 5, 0, false}),
                         [](const auto& tc) { return tc.param.name; });

TEST(ReadEntries, SkipsAFileThatVanished) {
  TempDir dir;
  LogFiles files(dir);
  files.Add("master-replica-0", Ts(0), "kept");
  files.Add("worker-replica-0", Ts(1), "gone");
  files.Write();
  std::filesystem::remove(dir.File("logs/worker-replica-0.log"));
  const ReadResult result = Read(files, {});
  ASSERT_EQ(result.entries.size(), 1u);
  EXPECT_EQ(result.entries[0].text, "kept");
}

TEST(ReadEntries, NoSourcesReadNothing) {
  const std::vector<LogSource> none;
  Result<ReadResult> result = ReadEntries({.sources = &none});
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->entries.empty());
  EXPECT_FALSE(result->more);
}

TEST(ReadStderrTail, KeepsTheLastStderrLinesWithinTheByteLimit) {
  TempDir dir;
  LogFiles files(dir);
  for (int i = 0; i < 100; ++i) {
    files.Add("master-replica-0", Ts(i), "out " + std::to_string(i));
    files.Add("master-replica-0", Ts(i), "err " + std::to_string(i), Stream::kStderr);
  }
  files.Add("master-replica-0", Ts(100), "bad \xFF", Stream::kStderr);
  files.AddRaw("master-replica-0", Ts(101) + " E partial");
  files.Write();
  const std::string path = dir.File("logs/master-replica-0.log");
  // Each record is 37-38 bytes: the last 200 bytes hold the last few whole records.
  EXPECT_EQ(ReadStderrTail(path, 200), "err 98\nerr 99\nbad \xEF\xBF\xBD");
  const std::string all = ReadStderrTail(path);
  EXPECT_TRUE(all.starts_with("err 0\nerr 1\n")) << all.substr(0, 40);
  EXPECT_EQ(std::ranges::count(all, '\n'), 100);
  EXPECT_EQ(ReadStderrTail(dir.File("logs/absent.log")), "");
}

// What `kubectl logs [-f]` reads of a replica's file: whole records from an offset, where the
// next read starts, a record still being written left for it.
struct WholeRecordsCase {
  std::string name;
  std::string file;      // "" for no file
  std::uint64_t offset;  // where the read starts
  std::string expected;  // what it reads
};

class ReadWholeRecordsFromTest : public ::testing::TestWithParam<WholeRecordsCase> {};

TEST_P(ReadWholeRecordsFromTest, ReadsWholeRecordsOnly) {
  const WholeRecordsCase& tc = GetParam();
  TempDir dir;
  const std::string path = dir.File("master-replica-0.log");
  if (!tc.file.empty()) {
    std::ofstream(path, std::ios::binary) << tc.file;
  }
  EXPECT_EQ(ReadWholeRecordsFrom(path, tc.offset), tc.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ReadWholeRecordsFromTest,
    ::testing::Values(WholeRecordsCase{"FromTheStart", "a\nbb\n", 0, "a\nbb\n"},
                      WholeRecordsCase{"FromARecord", "a\nbb\n", 2, "bb\n"},
                      WholeRecordsCase{"AtTheEnd", "a\nbb\n", 5, ""},
                      WholeRecordsCase{"PastTheEnd", "a\nbb\n", 9, ""},
                      WholeRecordsCase{"APartialRecordWaits", "a\nbb\ncc", 0, "a\nbb\n"},
                      WholeRecordsCase{"OnlyAPartialRecord", "a\nbb\ncc", 5, ""},
                      WholeRecordsCase{"NoFile", "", 0, ""}),
    [](const auto& tc) { return tc.param.name; });

// A link in the file's place (a job's doing, were its logs directory its own) is never followed.
TEST(ReadWholeRecordsFrom, NeverFollowsALink) {
  TempDir dir;
  std::ofstream(dir.File("secret"), std::ios::binary) << "root's\n";
  std::filesystem::create_symlink(dir.File("secret"), dir.File("master-replica-0.log"));
  EXPECT_EQ(ReadWholeRecordsFrom(dir.File("master-replica-0.log"), 0), "");
}

}  // namespace
}  // namespace trainyard::logs
