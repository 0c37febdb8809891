#include <optional>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "control/exit_statuses.h"
#include "control/reconcile/replica_policy.h"

namespace trainyard::control {
namespace {

using Action = ExitDecision::Action;
using model::RestartRule;
using model::SuccessRule;
using plan::Role;
using trainyard::testing::Exited;
using trainyard::testing::Killed;

struct DecisionCase {
  std::string name;
  Role role;
  int index;
  ExitStatus status;
  int restarts;
  Action action;
  std::string message;
};

class DecideOnExitTest : public ::testing::TestWithParam<DecisionCase> {};

// A job without extras: AI Platform's rules.
TEST_P(DecideOnExitTest, FollowsThePolicy) {
  const DecisionCase& c = GetParam();
  const ExitDecision decision =
      DecideOnExit({.role = c.role, .index = c.index, .status = c.status, .restarts = c.restarts},
                   ExitRulesOf(std::nullopt, c.role, "job"), {});
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

// Every RestartRule against every kind of end (docs/reference/kubeflow-tfjob.md §2.2), with budget
// left.
struct RuleCase {
  std::string name;
  RestartRule rule;
  Role role;
  ExitStatus status;
  Action action;
};

class RestartRuleTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(RestartRuleTest, DecidesByTheRolesRule) {
  const RuleCase& c = GetParam();
  const ExitRules rules{.restart = c.rule};
  EXPECT_EQ(DecideOnExit({.role = c.role, .index = 0, .status = c.status}, rules, {}).action,
            c.action);
}

INSTANTIATE_TEST_SUITE_P(
    Table, RestartRuleTest,
    ::testing::Values(
        RuleCase{"AiPlatformExit0", RestartRule::kAiPlatform, Role::kWorker, Exited(0),
                 Action::kNone},
        RuleCase{"AiPlatformExit1", RestartRule::kAiPlatform, Role::kWorker, Exited(1),
                 Action::kFail},
        RuleCase{"AiPlatformExit137", RestartRule::kAiPlatform, Role::kWorker, Exited(137),
                 Action::kFail},
        RuleCase{"AiPlatformSignal", RestartRule::kAiPlatform, Role::kWorker, Killed(9),
                 Action::kRestart},
        RuleCase{"NeverMasterExit0", RestartRule::kNever, Role::kMaster, Exited(0),
                 Action::kSucceed},
        RuleCase{"NeverExit0", RestartRule::kNever, Role::kWorker, Exited(0), Action::kNone},
        RuleCase{"NeverExit1", RestartRule::kNever, Role::kWorker, Exited(1), Action::kFail},
        RuleCase{"NeverExit137", RestartRule::kNever, Role::kParameterServer, Exited(137),
                 Action::kFail},
        RuleCase{"NeverSignal", RestartRule::kNever, Role::kMaster, Killed(9), Action::kFail},
        RuleCase{"OnFailureMasterExit0", RestartRule::kOnFailure, Role::kMaster, Exited(0),
                 Action::kSucceed},
        RuleCase{"OnFailureExit0", RestartRule::kOnFailure, Role::kWorker, Exited(0),
                 Action::kNone},
        RuleCase{"OnFailureExit1", RestartRule::kOnFailure, Role::kWorker, Exited(1),
                 Action::kRestart},
        RuleCase{"OnFailureExit137", RestartRule::kOnFailure, Role::kEvaluator, Exited(137),
                 Action::kRestart},
        RuleCase{"OnFailureSignal", RestartRule::kOnFailure, Role::kMaster, Killed(15),
                 Action::kRestart},
        RuleCase{"AlwaysMasterExit0EndsTheJob", RestartRule::kAlways, Role::kMaster, Exited(0),
                 Action::kSucceed},
        RuleCase{"AlwaysWorkerExit0", RestartRule::kAlways, Role::kWorker, Exited(0),
                 Action::kRestart},
        RuleCase{"AlwaysParameterServerExit0", RestartRule::kAlways, Role::kParameterServer,
                 Exited(0), Action::kRestart},
        RuleCase{"AlwaysExit1", RestartRule::kAlways, Role::kMaster, Exited(1), Action::kRestart},
        RuleCase{"AlwaysSignal", RestartRule::kAlways, Role::kWorker, Killed(9), Action::kRestart},
        RuleCase{"ExitCodeExit0", RestartRule::kExitCode, Role::kWorker, Exited(0), Action::kNone},
        RuleCase{"ExitCodeMasterExit0", RestartRule::kExitCode, Role::kMaster, Exited(0),
                 Action::kSucceed},
        RuleCase{"ExitCodeExit1", RestartRule::kExitCode, Role::kWorker, Exited(1), Action::kFail},
        RuleCase{"ExitCodeExit3", RestartRule::kExitCode, Role::kWorker, Exited(3), Action::kFail},
        RuleCase{"ExitCodeExit127", RestartRule::kExitCode, Role::kWorker, Exited(127),
                 Action::kFail},
        RuleCase{"ExitCodeExit128", RestartRule::kExitCode, Role::kWorker, Exited(128),
                 Action::kRestart},
        RuleCase{"ExitCodeExit137", RestartRule::kExitCode, Role::kWorker, Exited(137),
                 Action::kRestart},
        RuleCase{"ExitCodeExit255", RestartRule::kExitCode, Role::kWorker, Exited(255),
                 Action::kRestart},
        RuleCase{"ExitCodeSignal", RestartRule::kExitCode, Role::kMaster, Killed(9),
                 Action::kRestart}),
    [](const auto& tc) { return tc.param.name; });

// The restart budget: the job's backoff limit across every replica, else max_restarts each.
struct BudgetCase {
  std::string name;
  std::optional<int> backoff_limit;
  int restarts;      // the replica's
  int job_restarts;  // the job's
  bool final;
  Action action;
  std::string message;
};

class RestartBudgetTest : public ::testing::TestWithParam<BudgetCase> {};

TEST_P(RestartBudgetTest, SpendsTheBudget) {
  const BudgetCase& c = GetParam();
  const ExitRules rules{.restart = RestartRule::kOnFailure,
                        .backoff_limit = c.backoff_limit,
                        .job_name = "team-a/mnist"};
  const ExitDecision decision = DecideOnExit({.role = Role::kWorker,
                                              .index = 1,
                                              .status = Exited(1),
                                              .restarts = c.restarts,
                                              .job_restarts = c.job_restarts,
                                              .final = c.final},
                                             rules, {.max_restarts = 3});
  EXPECT_EQ(decision.action, c.action);
  EXPECT_EQ(decision.message, c.message);
}

constexpr std::string_view kBackoffMessage =
    "Job team-a/mnist has failed because it has reached the specified backoff limit";

INSTANTIATE_TEST_SUITE_P(
    Table, RestartBudgetTest,
    ::testing::Values(
        BudgetCase{"PerReplicaLeft", std::nullopt, 2, 9, false, Action::kRestart, ""},
        BudgetCase{"PerReplicaSpent", std::nullopt, 3, 3, false, Action::kFail,
                   "The replica worker 1 exited with a non-zero status of 1 and was restarted 3 "
                   "times; giving up."},
        BudgetCase{"BackoffLimitLeft", 1, 0, 0, false, Action::kRestart, ""},
        BudgetCase{"BackoffLimitSpentByAnotherReplica", 1, 0, 1, false, Action::kFail,
                   std::string(kBackoffMessage)},
        BudgetCase{"BackoffLimitZeroAllowsNone", 0, 0, 0, false, Action::kFail,
                   std::string(kBackoffMessage)},
        BudgetCase{"BackoffLimitReplacesMaxRestarts", 10, 5, 5, false, Action::kRestart, ""},
        BudgetCase{"FinalEndHasNoRestartLeft", std::nullopt, 1, 1, true, Action::kFail,
                   "The replica worker 1 exited with a non-zero status of 1 and was restarted 1 "
                   "time; giving up."},
        BudgetCase{"FinalEndUnderABackoffLimit", 5, 1, 1, true, Action::kFail,
                   std::string(kBackoffMessage)}),
    [](const auto& tc) { return tc.param.name; });

// SuccessRule kAllWorkers: the last of the master and the workers to exit 0 succeeds the job.
struct SuccessCase {
  std::string name;
  SuccessRule success;
  Role role;
  bool others_succeeded;
  Action action;
};

class SuccessRuleTest : public ::testing::TestWithParam<SuccessCase> {};

TEST_P(SuccessRuleTest, DecidesWhoEndsTheJob) {
  const SuccessCase& c = GetParam();
  const ExitRules rules{.restart = RestartRule::kOnFailure, .success = c.success};
  EXPECT_EQ(
      DecideOnExit(
          {.role = c.role, .index = 0, .status = Exited(0), .others_succeeded = c.others_succeeded},
          rules, {})
          .action,
      c.action);
}

INSTANTIATE_TEST_SUITE_P(
    Table, SuccessRuleTest,
    ::testing::Values(SuccessCase{"PrimaryMasterAlone", SuccessRule::kPrimary, Role::kMaster, false,
                                  Action::kSucceed},
                      SuccessCase{"PrimaryWorkerNeverEndsIt", SuccessRule::kPrimary, Role::kWorker,
                                  true, Action::kNone},
                      SuccessCase{"AllWorkersMasterWaits", SuccessRule::kAllWorkers, Role::kMaster,
                                  false, Action::kNone},
                      SuccessCase{"AllWorkersMasterLast", SuccessRule::kAllWorkers, Role::kMaster,
                                  true, Action::kSucceed},
                      SuccessCase{"AllWorkersWorkerNotLast", SuccessRule::kAllWorkers,
                                  Role::kWorker, false, Action::kNone},
                      SuccessCase{"AllWorkersWorkerLast", SuccessRule::kAllWorkers, Role::kWorker,
                                  true, Action::kSucceed},
                      SuccessCase{"AllWorkersParameterServerNeverEndsIt", SuccessRule::kAllWorkers,
                                  Role::kParameterServer, true, Action::kNone}),
    [](const auto& tc) { return tc.param.name; });

TEST(DecideOnExit, RestartAllOnFailureRestartsTheWholeJob) {
  const ExitRules rules{.restart = RestartRule::kOnFailure, .restart_all = true};
  const ExitDecision decision =
      DecideOnExit({.role = Role::kWorker, .index = 0, .status = Exited(1), .restarts = 1}, rules,
                   {.max_restarts = 3, .initial_backoff = std::chrono::milliseconds(1000)});
  EXPECT_EQ(decision.action, Action::kRestartJob);
  EXPECT_EQ(decision.backoff, std::chrono::milliseconds(2000));
}

TEST(ExitRulesOf, TakesTheRolesRuleAndTheJobsOthers) {
  model::JobExtras extras;
  extras.worker.restart = RestartRule::kExitCode;
  extras.success = SuccessRule::kAllWorkers;
  extras.backoff_limit = 2;
  extras.restart_all_on_failure = true;
  const ExitRules worker = ExitRulesOf(extras, Role::kWorker, "job_1");
  EXPECT_EQ(worker.restart, RestartRule::kExitCode);
  EXPECT_EQ(worker.success, SuccessRule::kAllWorkers);
  EXPECT_EQ(worker.backoff_limit, 2);
  EXPECT_TRUE(worker.restart_all);
  EXPECT_EQ(worker.job_name, "job_1");
  EXPECT_EQ(ExitRulesOf(extras, Role::kParameterServer, "job_1").restart, RestartRule::kAiPlatform);

  extras.kubeflow =
      model::KubeflowNaming{.job_name = "mnist", .namespace_name = "team-a", .primary_type = ""};
  EXPECT_EQ(ExitRulesOf(extras, Role::kMaster, "job_1").job_name, "team-a/mnist");

  const ExitRules none = ExitRulesOf(std::nullopt, Role::kMaster, "job_1");
  EXPECT_EQ(none.restart, RestartRule::kAiPlatform);
  EXPECT_EQ(none.success, SuccessRule::kPrimary);
  EXPECT_FALSE(none.backoff_limit.has_value());
  EXPECT_FALSE(none.restart_all);
}

TEST(RestartMessage, CountsAgainstTheBudgetInForce) {
  const ReplicaExit exit{
      .role = Role::kWorker, .index = 0, .status = Killed(9), .restarts = 0, .job_restarts = 2};
  const ExitDecision decision{
      .action = Action::kRestart, .backoff = std::chrono::milliseconds(1000), .message = {}};
  EXPECT_EQ(RestartMessage("worker-replica-0", exit, decision, {}, {.max_restarts = 3}),
            "The replica worker-replica-0 was terminated by signal 9 (SIGKILL); restarting it in "
            "1 s (restart 1 of 3).");
  const ExitRules limited{.backoff_limit = 4};
  EXPECT_EQ(RestartMessage("worker-replica-0", exit, decision, limited, {}),
            "The replica worker-replica-0 was terminated by signal 9 (SIGKILL); restarting it in "
            "1 s (restart 3 of 4).");
  const ExitDecision whole{
      .action = Action::kRestartJob, .backoff = std::chrono::milliseconds(2000), .message = {}};
  EXPECT_EQ(RestartMessage("worker-replica-0", exit, whole, limited, {}),
            "The replica worker-replica-0 was terminated by signal 9 (SIGKILL); restarting every "
            "replica in 2 s (restart 3 of 4).");
}

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
