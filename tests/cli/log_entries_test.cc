// Log entries as `stream-logs` decodes and prints them. The expected rows of
// `PrintsWhatGcloudPrints` are what gcloud 528's own printer (log_utils.LOG_FORMAT over
// log_utils.SplitMultiline, TZ=UTC) wrote for the same response.
#include "cli/follow/log_entries.h"

#include <ctime>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trainyard::cli {
namespace {

using ::testing::HasSubstr;

// gcloud's date format in UTC, so the rows do not depend on the machine's zone.
std::string GcloudUtcDate(WallTime time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[64];
  return std::string(text, std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S +0000", &tm));
}

std::string Rows(const LogEntriesPage& page, bool allow_multiline) {
  std::string rows;
  for (const ListedLogEntry& entry : page.entries) {
    rows += FormatLogEntry(entry, allow_multiline, GcloudUtcDate);
  }
  return rows;
}

constexpr const char* kResponse = R"({"entries":[
 {"insertId":"1","timestamp":"2026-11-21T09:35:01.760285Z","severity":"INFO",
  "resource":{"type":"ml_job","labels":{"job_id":"j","task_name":"master-replica-0"}},
  "textPayload":"hello text line1\nline2"},
 {"insertId":"2","timestamp":"2026-11-21T09:35:01.760285Z","severity":"ERROR",
  "labels":{"ml.googleapis.com/trial_id":"3","task_name":"worker-replica-0"},
  "jsonPayload":{"message":"json msg","levelname":"ERROR"}},
 {"insertId":"3","timestamp":"2026-11-21T09:35:01.760285Z","textPayload":"no task name"},
 {"insertId":"4","timestamp":"2026-11-21T09:35:01.760285Z","severity":"BOGUS",
  "labels":{"ml.googleapis.com/task_name":"ps-replica-0","trial_id":"7"},"textPayload":""},
 {"insertId":"5","timestamp":"2026-11-21T09:35:01.760285Z","severity":"WARNING",
  "resource":{"labels":{"task_name":"a"}},"labels":{"task_name":"b"},
  "textPayload":"x\r\ny\rz\u2028w\u000bv\n"},
 {"insertId":"6","timestamp":"2026-11-21T09:35:01.760285Z","severity":"INFO",
  "resource":{"labels":{"task_name":"service"}},"jsonPayload":{"other":1}},
 {"insertId":"7","timestamp":"2026-11-21T09:35:01.760285Z","severity":"DEBUG",
  "resource":{"labels":{"task_name":"t"}},"textPayload":"\ttabbed\t"}],
 "nextPageToken":"next"})";

TEST(LogEntries, PrintsWhatGcloudPrints) {
  auto page = DecodeLogEntriesPage(kResponse);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->next_page_token, "next");
  const std::string t = "\t2026-11-21 09:35:01 +0000\t";
  EXPECT_EQ(Rows(*page, /*allow_multiline=*/false),
            "INFO" + t + "master-replica-0\t\thello text line1\n" +  //
                "INFO" + t + "master-replica-0\t\tline2\n" +         //
                "ERROR" + t + "worker-replica-0\t3\tjson msg\n" +    //
                "DEFAULT" + t + "unknown_task\t\tno task name\n" +   //
                "DEFAULT" + t + "ps-replica-0\t7\t\n" +              //
                "WARNING" + t + "a\t\tx\n" +                         //
                "WARNING" + t + "a\t\ty\n" +                         //
                "WARNING" + t + "a\t\tz\n" +                         //
                "WARNING" + t + "a\t\tw\n" +                         //
                "WARNING" + t + "a\t\tv\n" +                         //
                "INFO" + t + "service\t\t\n" +                       //
                "DEBUG" + t + "t\t\t\ttabbed\t\n");
  EXPECT_EQ(Rows(*page, /*allow_multiline=*/true),
            "INFO" + t + "master-replica-0\t\thello text line1\nline2\n" +  //
                "ERROR" + t + "worker-replica-0\t3\tjson msg\n" +           //
                "DEFAULT" + t + "unknown_task\t\tno task name\n" +          //
                "DEFAULT" + t + "ps-replica-0\t7\t\n" +                     //
                "WARNING" + t + "a\t\tx\r\ny\rz\u2028w\vv\n\n" +            //
                "INFO" + t + "service\t\t\n" +                              //
                "DEBUG" + t + "t\t\t\ttabbed\t\n");
}

TEST(LogEntries, KeepsTheCursorFieldsAsSent) {
  auto page = DecodeLogEntriesPage(
      R"({"entries":[{"insertId":"000000000042","timestamp":"2026-11-21T09:35:01.5Z"}]})");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->entries.size(), 1u);
  EXPECT_EQ(page->entries[0], (ListedLogEntry{.timestamp = "2026-11-21T09:35:01.5Z",
                                              .insert_id = "000000000042",
                                              .severity = "DEFAULT",
                                              .task_name = "unknown_task"}));
  EXPECT_EQ(page->next_page_token, "");
}

TEST(LogEntries, AnEmptyAnswerIsAnEmptyLastPage) {
  auto page = DecodeLogEntriesPage("{}");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_TRUE(page->entries.empty());
  EXPECT_EQ(page->next_page_token, "");
}

struct BadPageCase {
  std::string name;
  std::string body;
  std::string why;
};

class BadPageTest : public ::testing::TestWithParam<BadPageCase> {};

TEST_P(BadPageTest, IsRefusedWithTheReason) {
  auto page = DecodeLogEntriesPage(GetParam().body);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(page.status().message(), HasSubstr(GetParam().why));
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, BadPageTest,
    ::testing::Values(
        BadPageCase{"NotJson", "<html>", "not a JSON object"},
        BadPageCase{"EntriesNotAList", R"({"entries":{}})", "entries is not a list"},
        BadPageCase{"TokenNotAString", R"({"nextPageToken":3})", "nextPageToken"},
        BadPageCase{"EntryNotAnObject", R"({"entries":["x"]})", "entries[0] is not an object"},
        BadPageCase{"NoTimestamp", R"({"entries":[{"insertId":"1"}]})",
                    "entries[0] has no timestamp"},
        BadPageCase{"NoInsertId",
                    R"({"entries":[{"insertId":"1","timestamp":"t"},{"timestamp":"t"}]})",
                    "entries[1] has no insertId"}),
    [](const auto& tc) { return tc.param.name; });

struct SplitCase {
  std::string name;
  std::string message;
  std::vector<std::string> lines;  // Python's message.splitlines() (or [''] when empty)
};

class SplitLogMessageTest : public ::testing::TestWithParam<SplitCase> {};

TEST_P(SplitLogMessageTest, SplitsAsPython) {
  EXPECT_EQ(SplitLogMessage(GetParam().message), GetParam().lines);
}

INSTANTIATE_TEST_SUITE_P(
    Messages, SplitLogMessageTest,
    ::testing::Values(SplitCase{"Empty", "", {""}}, SplitCase{"OneLine", "abc", {"abc"}},
                      SplitCase{"FinalBreakAddsNothing", "a\n", {"a"}},
                      SplitCase{"OnlyABreak", "\n", {""}},
                      SplitCase{"BlankLineKept", "a\n\nb", {"a", "", "b"}},
                      SplitCase{"CrLfIsOneBreak", "a\r\nb", {"a", "b"}},
                      SplitCase{"LoneCr", "a\rb\r", {"a", "b"}},
                      SplitCase{"ControlBreaks",
                                "a\vb\fc\x1c"
                                "d\x1d"
                                "e\x1e"
                                "f",
                                {"a", "b", "c", "d", "e", "f"}},
                      SplitCase{"UnicodeBreaks", "a\u0085b\u2028c\u2029d", {"a", "b", "c", "d"}},
                      SplitCase{"OtherUnicodeKept", "caf\u00e9 \u2027", {"caf\u00e9 \u2027"}},
                      SplitCase{"TabsKept", "\ta\tb", {"\ta\tb"}}),
    [](const auto& tc) { return tc.param.name; });

TEST(FormatLogEntry, ATimestampThatDoesNotParseShowsEmpty) {
  const ListedLogEntry entry{.timestamp = "yesterday",
                             .insert_id = "1",
                             .severity = "INFO",
                             .task_name = "master-replica-0",
                             .message = "m"};
  EXPECT_EQ(FormatLogEntry(entry, false, GcloudUtcDate), "INFO\t\tmaster-replica-0\t\tm\n");
}

// Vertex AI's LOG_FORMAT (command_lib/ai/log_util.py) has no trial_id column.
TEST(FormatLogEntry, VertexRowsHaveNoTrialColumn) {
  const ListedLogEntry entry{.timestamp = "2026-11-21T09:35:01.760285Z",
                             .insert_id = "1",
                             .severity = "INFO",
                             .task_name = "workerpool0-0",
                             .trial_id = "3",
                             .message = "a\nb"};
  EXPECT_EQ(FormatLogEntry(entry, false, GcloudUtcDate, /*trial_column=*/false),
            "INFO\t2026-11-21 09:35:01 +0000\tworkerpool0-0\ta\n"
            "INFO\t2026-11-21 09:35:01 +0000\tworkerpool0-0\tb\n");
}

TEST(FormatLogEntry, ShowsTheTimeInTheFormattersZoneToTheSecond) {
  const ListedLogEntry entry{.timestamp = "2026-11-21T23:59:59.999999999Z",
                             .insert_id = "1",
                             .severity = "INFO",
                             .task_name = "service",
                             .message = "Job completed successfully."};
  EXPECT_THAT(FormatLogEntry(entry, false, GcloudUtcDate),
              ::testing::StrEq("INFO\t2026-11-21 23:59:59 +0000\tservice\t\tJob completed "
                               "successfully.\n"));
  // LocalLogDate ends with the zone's numeric offset.
  EXPECT_THAT(LocalLogDate(WallTime{}),
              ::testing::MatchesRegex(
                  "19(69|70)-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}"));
}

}  // namespace
}  // namespace trainyard::cli
