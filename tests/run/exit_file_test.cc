#include "run/exit_file.h"

#include <chrono>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "base/time_format.h"

namespace trainyard::run {
namespace {

// 2026-11-21T09:35:01.123456789Z
const WallTime kEnded = *ParseTimestamp("2026-11-21T09:35:01.123456789Z");

struct ParseCase {
  std::string name;
  std::string text;
  std::optional<ExitStatus> status;  // nullopt: not an exit file
};

class ParseExitFileTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(ParseExitFileTest, ReadsTheStatusAndWhenItEnded) {
  const std::optional<ExitStatus> got = ParseExitFile(GetParam().text);
  const std::optional<ExitStatus>& want = GetParam().status;
  ASSERT_EQ(got.has_value(), want.has_value()) << GetParam().text;
  if (want.has_value()) {
    EXPECT_EQ(got->signaled, want->signaled);
    EXPECT_EQ(got->code, want->code);
    EXPECT_EQ(got->signal, want->signal);
    EXPECT_EQ(got->ended, want->ended);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseExitFileTest,
    ::testing::Values(
        // Files written before the end time was recorded still read, without it.
        ParseCase{"OldExited", "exited 0\n", ExitStatus{}},
        ParseCase{"OldSignaled", "signaled 9\n", ExitStatus{.signaled = true, .signal = 9}},
        ParseCase{"Exited", "exited 3\nended 2026-11-21T09:35:01.123456789Z\n",
                  ExitStatus{.code = 3, .ended = kEnded}},
        ParseCase{"Signaled", "signaled 15\nended 2026-11-21T09:35:01.123456789Z\n",
                  ExitStatus{.signaled = true, .signal = 15, .ended = kEnded}},
        ParseCase{"WholeSeconds", "exited 0\nended 2026-11-21T09:35:01Z\n",
                  ExitStatus{.ended = *ParseTimestamp("2026-11-21T09:35:01Z")}},
        ParseCase{"Empty", "", std::nullopt}, ParseCase{"NoNewline", "exited 0", std::nullopt},
        ParseCase{"EndedWithoutNewline", "exited 0\nended 2026-11-21T09:35:01Z", std::nullopt},
        ParseCase{"EndedNotATime", "exited 0\nended yesterday\n", std::nullopt},
        ParseCase{"SecondLineUnknown", "exited 0\nexited 1\n", std::nullopt},
        ParseCase{"ThirdLine", "exited 0\nended 2026-11-21T09:35:01Z\n\n", std::nullopt},
        ParseCase{"TooLong", "exited 0\nended 2026-11-21T09:35:01Z\n" + std::string(128, ' '),
                  std::nullopt}),
    [](const auto& tc) { return tc.param.name; });

TEST(ExitFileText, IsReadBackAsWritten) {
  for (const ExitStatus& status :
       {ExitStatus{}, ExitStatus{.code = 127}, ExitStatus{.signaled = true, .signal = 9}}) {
    const std::string text = ExitFileText(status, kEnded);
    EXPECT_LE(text.size(), kMaxExitFileBytes);
    const std::optional<ExitStatus> read = ParseExitFile(text);
    ASSERT_TRUE(read.has_value()) << text;
    EXPECT_EQ(read->signaled, status.signaled);
    EXPECT_EQ(read->code, status.code);
    EXPECT_EQ(read->signal, status.signal);
    EXPECT_EQ(read->ended, kEnded);
  }
  EXPECT_EQ(ExitFileText(ExitStatus{.code = 3}, kEnded),
            "exited 3\nended 2026-11-21T09:35:01.123456789Z\n");
}

}  // namespace
}  // namespace trainyard::run
