#include "run/local/supervisor_command.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::run::local {
namespace {

using Words = std::vector<std::string>;

const SupervisorArgs kArgs{.log_path = "/data/jobs/p/j/logs/master-replica-0.log",
                           .exit_path = "/data/jobs/p/j/run/master-replica-0.exit",
                           .argv = {"/usr/bin/python3", "-m", "trainer.task", "--", "--log"}};

TEST(SupervisorCommand, IsParsedBackToTheSameArguments) {
  Words command = SupervisorCommand("/opt/trainyard/trainyard-replica", kArgs);
  EXPECT_EQ(command, (Words{"/opt/trainyard/trainyard-replica", "--log", kArgs.log_path, "--exit",
                            kArgs.exit_path, "--", "/usr/bin/python3", "-m", "trainer.task", "--",
                            "--log"}));
  std::optional<SupervisorArgs> parsed =
      ParseSupervisorArgs(Words(command.begin() + 1, command.end()));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, kArgs);
}

TEST(ParseSupervisorArgs, TakesTheOptionsInEitherOrder) {
  std::optional<SupervisorArgs> parsed =
      ParseSupervisorArgs({"--exit", "e", "--log", "l", "--", "/bin/true"});
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, (SupervisorArgs{.log_path = "l", .exit_path = "e", .argv = {"/bin/true"}}));
}

TEST(SupervisorCommand, NamesTheContainerBeforeTheSeparator) {
  SupervisorArgs args = kArgs;
  args.container = "trainyard-p-j-master-replica-0";
  Words command = SupervisorCommand("/t/trainyard-replica", args);
  EXPECT_EQ(Words(command.begin(), command.begin() + 8),
            (Words{"/t/trainyard-replica", "--log", kArgs.log_path, "--exit", kArgs.exit_path,
                   "--container", "trainyard-p-j-master-replica-0", "--"}));
  std::optional<SupervisorArgs> parsed =
      ParseSupervisorArgs(Words(command.begin() + 1, command.end()));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, args);
  EXPECT_TRUE(IsSupervisorCommand(command, kArgs.log_path, kArgs.exit_path));
}

TEST(SupervisorCommand, NamesTheUserBeforeTheSeparator) {
  SupervisorArgs args = kArgs;
  args.user = "999:995";
  Words command = SupervisorCommand("/t/trainyard-replica", args);
  EXPECT_EQ(Words(command.begin(), command.begin() + 8),
            (Words{"/t/trainyard-replica", "--log", kArgs.log_path, "--exit", kArgs.exit_path,
                   "--user", "999:995", "--"}));
  std::optional<SupervisorArgs> parsed =
      ParseSupervisorArgs(Words(command.begin() + 1, command.end()));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, args);
  EXPECT_TRUE(IsSupervisorCommand(command, kArgs.log_path, kArgs.exit_path));
}

TEST(SupervisorCommand, NamesTheEnvironmentsDescriptorBeforeTheSeparator) {
  SupervisorArgs args = kArgs;
  args.env_fd = 0;
  Words command = SupervisorCommand("/t/trainyard-replica", args);
  EXPECT_EQ(Words(command.begin(), command.begin() + 8),
            (Words{"/t/trainyard-replica", "--log", kArgs.log_path, "--exit", kArgs.exit_path,
                   "--env-fd", "0", "--"}));
  std::optional<SupervisorArgs> parsed =
      ParseSupervisorArgs(Words(command.begin() + 1, command.end()));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, args);
  EXPECT_TRUE(IsSupervisorCommand(command, kArgs.log_path, kArgs.exit_path));
}

TEST(SupervisorCommand, NamesTheViewBeforeTheSeparator) {
  SupervisorArgs args = kArgs;
  args.view = FileView{.hidden = "/data",
                       .writable = {"/data/jobs/p/j", "/data/buckets/b"},
                       .readable = {"/data/packages/k"},
                       .private_dirs = {"/tmp", "/home/job"},
                       .private_root = "/dev/shm/trainyard-1-2/p/j"};
  Words command = SupervisorCommand("/t/trainyard-replica", args);
  EXPECT_EQ(Words(command.begin() + 5, command.begin() + 20),
            (Words{"--hide", "/data", "--private-root", "/dev/shm/trainyard-1-2/p/j", "--bind",
                   "/data/jobs/p/j", "--bind", "/data/buckets/b", "--ro-bind", "/data/packages/k",
                   "--private", "/tmp", "--private", "/home/job", "--"}));
  std::optional<SupervisorArgs> parsed =
      ParseSupervisorArgs(Words(command.begin() + 1, command.end()));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, args);
  EXPECT_TRUE(IsSupervisorCommand(command, kArgs.log_path, kArgs.exit_path));
}

TEST(SupervisorCommand, SaysHeldBeforeTheSeparator) {
  SupervisorArgs args = kArgs;
  args.held = true;
  Words command = SupervisorCommand("/t/trainyard-replica", args);
  EXPECT_EQ(Words(command.begin(), command.begin() + 7),
            (Words{"/t/trainyard-replica", "--log", kArgs.log_path, "--exit", kArgs.exit_path,
                   "--held", "--"}));
  std::optional<SupervisorArgs> parsed =
      ParseSupervisorArgs(Words(command.begin() + 1, command.end()));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, args);
  EXPECT_TRUE(IsSupervisorCommand(command, kArgs.log_path, kArgs.exit_path));
  EXPECT_TRUE(ParseSupervisorArgs({"--held", "--log", "l", "--exit", "e", "--", "x"}));
}

TEST(EncodeEnvironment, IsWhatProcEnvironHoldsAndDecodesBack) {
  const std::vector<std::pair<std::string, std::string>> env = {
      {"PATH", "/usr/bin:/bin"}, {"EMPTY", ""}, {"TF_CONFIG", "{\"a\": \"b=c\"}"}};
  const std::string text = EncodeEnvironment(env);
  EXPECT_EQ(text, std::string("PATH=/usr/bin:/bin\0EMPTY=\0TF_CONFIG={\"a\": \"b=c\"}\0", 49));
  EXPECT_EQ(DecodeEnvironment(text),
            (Words{"PATH=/usr/bin:/bin", "EMPTY=", "TF_CONFIG={\"a\": \"b=c\"}"}));
  EXPECT_EQ(EncodeEnvironment({}), "");
  EXPECT_EQ(DecodeEnvironment(""), Words{});
}

TEST(DecodeEnvironment, LeavesOutEntriesWithoutAName) {
  EXPECT_EQ(DecodeEnvironment(std::string("A=1\0\0=x\0novalue\0B=2", 19)), (Words{"A=1", "B=2"}));
}

struct ContainerExitCase {
  int code;
  ExitStatus want;
};

class ContainerExitStatusTest : public ::testing::TestWithParam<ContainerExitCase> {};

TEST_P(ContainerExitStatusTest, Reads128PlusNAsSignalN) {
  const ExitStatus got = ContainerExitStatus(GetParam().code);
  EXPECT_EQ(got.signaled, GetParam().want.signaled);
  EXPECT_EQ(got.code, GetParam().want.code);
  EXPECT_EQ(got.signal, GetParam().want.signal);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ContainerExitStatusTest,
    ::testing::Values(ContainerExitCase{0, ExitStatus{.code = 0}},
                      ContainerExitCase{1, ExitStatus{.code = 1}},
                      ContainerExitCase{125, ExitStatus{.code = 125}},  // podman's own error
                      ContainerExitCase{128, ExitStatus{.code = 128}},
                      ContainerExitCase{137, ExitStatus{.signaled = true, .signal = 9}},
                      ContainerExitCase{143, ExitStatus{.signaled = true, .signal = 15}},
                      ContainerExitCase{192, ExitStatus{.signaled = true, .signal = 64}},
                      ContainerExitCase{193, ExitStatus{.code = 193}},
                      ContainerExitCase{255, ExitStatus{.code = 255}}));

struct BadArgsCase {
  std::string name;
  Words args;
};

class ParseSupervisorArgsBadTest : public ::testing::TestWithParam<BadArgsCase> {};

TEST_P(ParseSupervisorArgsBadTest, RefusesThem) {
  EXPECT_FALSE(ParseSupervisorArgs(GetParam().args).has_value());
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseSupervisorArgsBadTest,
    ::testing::Values(
        BadArgsCase{"Nothing", {}}, BadArgsCase{"NoProgram", {"--log", "l", "--exit", "e", "--"}},
        BadArgsCase{"NoSeparator", {"--log", "l", "--exit", "e", "/bin/true"}},
        BadArgsCase{"NoLog", {"--exit", "e", "--", "/bin/true"}},
        BadArgsCase{"NoExit", {"--log", "l", "--", "/bin/true"}},
        BadArgsCase{"EmptyLog", {"--log", "", "--exit", "e", "--", "/bin/true"}},
        BadArgsCase{"Repeated", {"--log", "l", "--log", "m", "--exit", "e", "--", "x"}},
        BadArgsCase{"Unknown", {"--log", "l", "--exit", "e", "--tail", "3", "--", "x"}},
        BadArgsCase{"MissingValue", {"--log"}},
        BadArgsCase{"EmptyContainer", {"--log", "l", "--exit", "e", "--container", "", "--", "x"}},
        BadArgsCase{"EmptyUser", {"--log", "l", "--exit", "e", "--user", "", "--", "x"}},
        BadArgsCase{"RepeatedUser",
                    {"--log", "l", "--exit", "e", "--user", "1:1", "--user", "2:2", "--", "x"}},
        BadArgsCase{
            "RepeatedContainer",
            {"--log", "l", "--exit", "e", "--container", "a", "--container", "b", "--", "x"}},
        BadArgsCase{"EnvFdNotANumber", {"--log", "l", "--exit", "e", "--env-fd", "x", "--", "x"}},
        BadArgsCase{"EnvFdNegative", {"--log", "l", "--exit", "e", "--env-fd", "-1", "--", "x"}},
        BadArgsCase{"EnvFdTrailing", {"--log", "l", "--exit", "e", "--env-fd", "0 ", "--", "x"}},
        BadArgsCase{"EnvFdEmpty", {"--log", "l", "--exit", "e", "--env-fd", "", "--", "x"}},
        BadArgsCase{"RepeatedEnvFd",
                    {"--log", "l", "--exit", "e", "--env-fd", "0", "--env-fd", "0", "--", "x"}},
        BadArgsCase{"RepeatedHide",
                    {"--log", "l", "--exit", "e", "--hide", "/a", "--hide", "/b", "--", "x"}},
        BadArgsCase{"EmptyHide", {"--log", "l", "--exit", "e", "--hide", "", "--", "x"}},
        BadArgsCase{"EmptyBind", {"--log", "l", "--exit", "e", "--bind", "", "--", "x"}},
        BadArgsCase{"EmptyReadOnlyBind", {"--log", "l", "--exit", "e", "--ro-bind", "", "--", "x"}},
        BadArgsCase{"EmptyPrivate", {"--log", "l", "--exit", "e", "--private", "", "--", "x"}},
        BadArgsCase{"EmptyPrivateRoot",
                    {"--log", "l", "--exit", "e", "--private-root", "", "--", "x"}},
        BadArgsCase{"BindWithoutValue", {"--log", "l", "--exit", "e", "--bind"}},
        BadArgsCase{"RepeatedHeld", {"--log", "l", "--exit", "e", "--held", "--held", "--", "x"}},
        BadArgsCase{"HeldWithoutProgram", {"--log", "l", "--exit", "e", "--held"}}),
    [](const auto& tc) { return tc.param.name; });

struct RecognizeCase {
  std::string name;
  Words command;
  bool recognized;
};

class IsSupervisorCommandTest : public ::testing::TestWithParam<RecognizeCase> {};

TEST_P(IsSupervisorCommandTest, RecognizesOnlyThisReplicasSupervisor) {
  EXPECT_EQ(IsSupervisorCommand(GetParam().command, kArgs.log_path, kArgs.exit_path),
            GetParam().recognized);
}

SupervisorArgs OtherExit() {
  SupervisorArgs args = kArgs;
  args.exit_path = "/data/jobs/p/j/run/worker-replica-0.exit";
  return args;
}

SupervisorArgs OtherLog() {
  SupervisorArgs args = kArgs;
  args.log_path = "/data/jobs/p/j/logs/worker-replica-0.log";
  return args;
}

INSTANTIATE_TEST_SUITE_P(
    Table, IsSupervisorCommandTest,
    ::testing::Values(
        RecognizeCase{"Itself", SupervisorCommand("/build/trainyard-replica", kArgs), true},
        RecognizeCase{"AnotherInstallOfIt",
                      SupervisorCommand("/usr/libexec/trainyard-replica", kArgs), true},
        RecognizeCase{"BareName", SupervisorCommand("trainyard-replica", kArgs), true},
        RecognizeCase{"AnotherReplicasExitFile",
                      SupervisorCommand("/build/trainyard-replica", OtherExit()), false},
        RecognizeCase{"AnotherReplicasLog",
                      SupervisorCommand("/build/trainyard-replica", OtherLog()), false},
        RecognizeCase{"AnotherProgram", SupervisorCommand("/usr/bin/python3", kArgs), false},
        RecognizeCase{"SimilarName", SupervisorCommand("/build/trainyard-replica2", kArgs), false},
        RecognizeCase{"TheTrainerItself", kArgs.argv, false}, RecognizeCase{"Zombie", {}, false}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::run::local
