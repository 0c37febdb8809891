#include "run/launcher.h"

#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <signal.h>

#include "base/time_format.h"
#include "fakes/temp_dir.h"

namespace trainyard::run {
namespace {

struct DescribeCase {
  std::string name;
  ExitStatus status;
  std::string text;
  bool succeeded;
};

class DescribeTest : public ::testing::TestWithParam<DescribeCase> {};

TEST_P(DescribeTest, WordsTheExitAsAiPlatformDoes) {
  EXPECT_EQ(GetParam().status.Describe(), GetParam().text);
  EXPECT_EQ(GetParam().status.Succeeded(), GetParam().succeeded);
}

INSTANTIATE_TEST_SUITE_P(
    Table, DescribeTest,
    ::testing::Values(
        DescribeCase{"Zero", {}, "exited with status 0", true},
        DescribeCase{"One", {.code = 1}, "exited with a non-zero status of 1", false},
        DescribeCase{"Big", {.code = 255}, "exited with a non-zero status of 255", false},
        DescribeCase{"Kill",
                     {.signaled = true, .signal = SIGKILL},
                     "was terminated by signal 9 (SIGKILL)",
                     false},
        DescribeCase{"Term",
                     {.signaled = true, .signal = SIGTERM},
                     "was terminated by signal 15 (SIGTERM)",
                     false},
        DescribeCase{"Segv",
                     {.signaled = true, .signal = SIGSEGV},
                     "was terminated by signal 11 (SIGSEGV)",
                     false},
        DescribeCase{"Abrt",
                     {.signaled = true, .signal = SIGABRT},
                     "was terminated by signal 6 (SIGABRT)",
                     false},
        DescribeCase{"Int",
                     {.signaled = true, .signal = SIGINT},
                     "was terminated by signal 2 (SIGINT)",
                     false},
        DescribeCase{"Hup",
                     {.signaled = true, .signal = SIGHUP},
                     "was terminated by signal 1 (SIGHUP)",
                     false},
        DescribeCase{"Bus",
                     {.signaled = true, .signal = SIGBUS},
                     "was terminated by signal 7 (SIGBUS)",
                     false},
        DescribeCase{"Fpe",
                     {.signaled = true, .signal = SIGFPE},
                     "was terminated by signal 8 (SIGFPE)",
                     false},
        DescribeCase{"Ill",
                     {.signaled = true, .signal = SIGILL},
                     "was terminated by signal 4 (SIGILL)",
                     false},
        DescribeCase{"Pipe",
                     {.signaled = true, .signal = SIGPIPE},
                     "was terminated by signal 13 (SIGPIPE)",
                     false},
        DescribeCase{
            "Unnamed", {.signaled = true, .signal = SIGUSR1}, "was terminated by signal 10", false},
        // A signal number is not an exit code: signaled with code 0 still failed.
        DescribeCase{"SignaledWithZeroCode",
                     {.signaled = true, .code = 0, .signal = SIGTERM},
                     "was terminated by signal 15 (SIGTERM)",
                     false}),
    [](const auto& tc) { return tc.param.name; });

struct ExitFileCase {
  std::string name;
  std::optional<std::string> text;  // nullopt: no file
  std::optional<ExitStatus> status;
};

class ReadExitStatusTest : public ::testing::TestWithParam<ExitFileCase> {};

TEST_P(ReadExitStatusTest, ReadsWhatTheSupervisorWrote) {
  ::trainyard::testing::TempDir dir;
  const std::string path = dir.File("master-replica-0.exit");
  if (GetParam().text.has_value()) {
    std::ofstream(path, std::ios::binary) << *GetParam().text;
  }
  std::optional<ExitStatus> status = ReadExitStatus(path);
  ASSERT_EQ(status.has_value(), GetParam().status.has_value());
  if (status.has_value()) {
    EXPECT_EQ(status->signaled, GetParam().status->signaled);
    EXPECT_EQ(status->code, GetParam().status->code);
    EXPECT_EQ(status->signal, GetParam().status->signal);
    EXPECT_EQ(status->ended, GetParam().status->ended);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ReadExitStatusTest,
    ::testing::Values(
        ExitFileCase{"ExitedZero", "exited 0\n", ExitStatus{}},
        ExitFileCase{"ExitedOne", "exited 1\n", ExitStatus{.code = 1}},
        ExitFileCase{"Exited127", "exited 127\n", ExitStatus{.code = 127}},
        ExitFileCase{"Signaled", "signaled 15\n", ExitStatus{.signaled = true, .signal = 15}},
        ExitFileCase{"Missing", std::nullopt, std::nullopt},
        ExitFileCase{"Empty", "", std::nullopt},
        ExitFileCase{"NoNewline", "exited 3", std::nullopt},
        ExitFileCase{"NotANumber", "exited three\n", std::nullopt},
        ExitFileCase{"Trailing", "exited 3 \n", std::nullopt},
        ExitFileCase{"UnknownWord", "stopped 19\n", std::nullopt},
        ExitFileCase{"TwoLines", "exited 0\nexited 1\n", std::nullopt},
        ExitFileCase{"WithEndTime", "exited 2\nended 2026-11-21T09:35:01Z\n",
                     ExitStatus{.code = 2, .ended = ParseTimestamp("2026-11-21T09:35:01Z")}},
        ExitFileCase{"LongerThanAnyExitFile", "exited 0\n" + std::string(200, 'x'), std::nullopt}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::run
