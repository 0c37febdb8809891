#include "control/replica_policy.h"

#include <gtest/gtest.h>

namespace trainyard::control {
namespace {

using Action = ExitDecision::Action;
using plan::Role;

run::ExitStatus Exited(int code) {
  return {.signaled = false, .code = code, .signal = 0};
}
run::ExitStatus Killed(int signal) {
  return {.signaled = true, .code = 0, .signal = signal};
}

struct DecisionCase {
  std::string name;
  Role role;
  int index;
  run::ExitStatus status;
  int restarts;
  Action action;
  std::string message;
};

class DecideOnExitTest : public ::testing::TestWithParam<DecisionCase> {};

TEST_P(DecideOnExitTest, FollowsThePolicy) {
  const DecisionCase& c = GetParam();
  const ExitDecision decision = DecideOnExit(c.role, c.index, c.status, c.restarts, {});
  EXPECT_EQ(decision.action, c.action);
  EXPECT_EQ(decision.message, c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, DecideOnExitTest,
    ::testing::Values(
        DecisionCase{"MasterSuccessSucceedsTheJob", Role::kMaster, 0, Exited(0), 0,
                     Action::kSucceed, ""},
        DecisionCase{"WorkerSuccessIsItsPartDone", Role::kWorker, 3, Exited(0), 0, Action::kNone,
                     ""},
        DecisionCase{"EvaluatorSuccessIsItsPartDone", Role::kEvaluator, 0, Exited(0), 0,
                     Action::kNone, ""},
        DecisionCase{"ParameterServerSuccessIsIgnored", Role::kParameterServer, 0, Exited(0), 0,
                     Action::kNone, ""},
        DecisionCase{"MasterFailureFails", Role::kMaster, 0, Exited(1), 0, Action::kFail,
                     "The replica master 0 exited with a non-zero status of 1. Termination "
                     "reason: Error."},
        DecisionCase{"WorkerFailureFails", Role::kWorker, 4, Exited(2), 0, Action::kFail,
                     "The replica worker 4 exited with a non-zero status of 2. Termination "
                     "reason: Error."},
        DecisionCase{"ParameterServerFailureFails", Role::kParameterServer, 1, Exited(1), 0,
                     Action::kFail,
                     "The replica ps 1 exited with a non-zero status of 1. Termination reason: "
                     "Error."},
        DecisionCase{"SignalRestarts", Role::kWorker, 0, Killed(9), 0, Action::kRestart, ""},
        DecisionCase{"MasterSignalRestartsToo", Role::kMaster, 0, Killed(15), 2, Action::kRestart,
                     ""},
        DecisionCase{"SignalBeyondTheLimitFails", Role::kWorker, 1, Killed(9), 3, Action::kFail,
                     "The replica worker 1 was terminated by signal 9 (SIGKILL) and was restarted "
                     "3 times; giving up."}),
    [](const auto& tc) { return tc.param.name; });

TEST(RestartBackoffTest, DoublesUpToTheMaximum) {
  const RestartPolicy policy{.max_restarts = 10,
                             .initial_backoff = std::chrono::milliseconds(1000),
                             .max_backoff = std::chrono::milliseconds(5000)};
  EXPECT_EQ(RestartBackoff(0, policy), std::chrono::milliseconds(1000));
  EXPECT_EQ(RestartBackoff(1, policy), std::chrono::milliseconds(2000));
  EXPECT_EQ(RestartBackoff(2, policy), std::chrono::milliseconds(4000));
  EXPECT_EQ(RestartBackoff(3, policy), std::chrono::milliseconds(5000));
  EXPECT_EQ(RestartBackoff(40, policy), std::chrono::milliseconds(5000));
}

struct TailCase {
  std::string name;
  std::string stderr_text;
  int max_lines;
  std::size_t max_bytes;
  std::string expected;
};

class WithStderrTailTest : public ::testing::TestWithParam<TailCase> {};

TEST_P(WithStderrTailTest, AppendsTheEndOfStderr) {
  const TailCase& c = GetParam();
  EXPECT_EQ(WithStderrTail("Failed.", c.stderr_text, c.max_lines, c.max_bytes), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Table, WithStderrTailTest,
    ::testing::Values(TailCase{"Empty", "", 20, 4000, "Failed."},
                      TailCase{"BlankOnly", " \n\n\t\n", 20, 4000, "Failed."},
                      TailCase{"OneLine", "boom\n", 20, 4000, "Failed. boom"},
                      TailCase{"KeepsTheLastLines", "a\nb\nc\nd\n", 2, 4000, "Failed. c\nd"},
                      TailCase{"ExactlyMaxLines", "a\nb\n", 2, 4000, "Failed. a\nb"},
                      TailCase{"TrailingBlankLinesIgnored", "a\nb\n\n\n", 1, 4000, "Failed. b"},
                      TailCase{"BytesCutInsideALine", "first line\nsecond\nthird\n", 20, 11,
                               "Failed. third"},
                      TailCase{"BytesCutAtALineStart", "first line\nsecond\nthird\n", 20, 12,
                               "Failed. second\nthird"},
                      TailCase{"OneLongLineKeepsItsEnd", "abcdefghij", 20, 4, "Failed. ghij"}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::control
