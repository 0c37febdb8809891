// What a replica is started with must fit one execve(2) (validate/exec_limits.cc): ml v1's
// fields, and a role's env and own args as a job from another API brings them in its extras.
#include <cstddef>
#include <string>
#include <vector>

#include "support/sample_jobs.h"
#include "validate/rule_case.h"

namespace trainyard::validate::testing {
namespace {

using model::Job;

constexpr std::size_t kMaxArgument = 128 * 1024 - 1;  // MAX_ARG_STRLEN less the NUL
constexpr std::size_t kMaxTotal = 1024 * 1024;
constexpr std::size_t kPointer = sizeof(char*);
const std::string kNul("\0", 1);

std::vector<std::string> Strings(std::size_t count, std::size_t bytes) {
  return std::vector<std::string>(count, std::string(bytes, 'x'));
}

model::RoleExtras& MasterExtras(Job& job) {
  if (!job.extras) {
    job.extras.emplace();
  }
  return job.extras->master;
}

model::RoleExtras& WorkerExtras(Job& job) {
  if (!job.extras) {
    job.extras.emplace();
  }
  return job.extras->worker;
}

// A GPU job whose replicas run the master's image.
Job GpuContainerJob() {
  Job job = GpuJob();
  model::TrainingInput& input = In(job);
  trainyard::testing::DropPythonPackage(input);
  Master(job).image_uri = "gcr.io/my-project/trainer:1";
  return job;
}

class ExecLimitRules : public RuleTest {};
TEST_P(ExecLimitRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

// One argument: no NUL, at most MAX_ARG_STRLEN with its NUL.
INSTANTIATE_TEST_SUITE_P(
    Arguments, ExecLimitRules,
    ::testing::Values(
        RuleCase{"LongestArgument", RuntimeJob,
                 [](Job& j) {
                   In(j).args = {"--a", std::string(kMaxArgument, 'x')};
                 },
                 ""},
        RuleCase{"ArgumentOneByteLonger", RuntimeJob,
                 [](Job& j) {
                   In(j).args = {"--a", std::string(kMaxArgument + 1, 'x')};
                 },
                 "trainingInput.args[1]"},
        RuleCase{"NulInArgs", RuntimeJob, [](Job& j) { In(j).args = {"--a" + kNul + "b"}; },
                 "trainingInput.args[0]"},
        RuleCase{"ManyNulArgsMakeOneViolation", RuntimeJob,
                 [](Job& j) {
                   In(j).args = {"ok", kNul, kNul, kNul};
                 },
                 "trainingInput.args[1]"},
        RuleCase{"NulInContainerCommand", ContainerJob,
                 [](Job& j) { Master(j).container_command = {"py" + kNul + "thon"}; },
                 "trainingInput.masterConfig.containerCommand[0]"},
        RuleCase{"NulInWorkerContainerArgs", GpuContainerJob,
                 [](Job& j) {
                   Worker(j).container_args = {"-v", "x" + kNul};
                 },
                 "trainingInput.workerConfig.containerArgs[1]"},
        RuleCase{"LongContainerArg", ContainerJob,
                 [](Job& j) { Master(j).container_args = {std::string(200'000, 'x')}; },
                 "trainingInput.masterConfig.containerArgs[0]"}),
    CaseName);

// A replica's command line and environment: at most 1 MiB, each string costing its bytes, its
// NUL and its pointer.
INSTANTIATE_TEST_SUITE_P(
    Total, ExecLimitRules,
    ::testing::Values(
        RuleCase{"ExactlyOneMebibyte", RuntimeJob,
                 [](Job& j) { In(j).args = Strings(8, kMaxTotal / 8 - 1 - kPointer); }, ""},
        RuleCase{"OneByteMore", RuntimeJob,
                 [](Job& j) {
                   In(j).args = Strings(8, kMaxTotal / 8 - 1 - kPointer);
                   In(j).args[0] += "x";
                 },
                 "trainingInput.args"},
        RuleCase{"TenMegabytesOfArgs", RuntimeJob,
                 [](Job& j) { In(j).args = Strings(100, 100'000); }, "trainingInput.args"},
        RuleCase{"EmptyArgumentsCostTheirPointers", RuntimeJob,
                 [](Job& j) { In(j).args = Strings(kMaxTotal / (1 + kPointer) + 1, 0); },
                 "trainingInput.args"},
        RuleCase{"ContainerArgs", ContainerJob,
                 [](Job& j) { Master(j).container_args = Strings(10, 120'000); },
                 "trainingInput.masterConfig.containerArgs"},
        RuleCase{"CommandAndArgsTogether", ContainerJob,
                 [](Job& j) {
                   Master(j).container_command = Strings(5, 110'000);
                   Master(j).container_args = Strings(5, 100'000);
                 },
                 "trainingInput.masterConfig.containerCommand"},
        RuleCase{"TrainingArgsFollowAContainer", ContainerJob,
                 [](Job& j) { In(j).args = Strings(10, 120'000); }, "trainingInput.args"},
        RuleCase{"InheritedArgsReportedOnce", GpuContainerJob,
                 [](Job& j) { Master(j).container_args = Strings(10, 120'000); },
                 "trainingInput.masterConfig.containerArgs"},
        RuleCase{"WorkerOwnArgs", GpuContainerJob,
                 [](Job& j) { Worker(j).container_args = Strings(10, 120'000); },
                 "trainingInput.workerConfig.containerArgs"},
        RuleCase{"EnvironmentCounts", ContainerJob,
                 [](Job& j) {
                   Master(j).container_args = Strings(4, 120'000);
                   for (int i = 0; i < 5; ++i) {
                     MasterExtras(j).env.emplace_back("V" + std::to_string(i),
                                                      std::string(120'000, 'x'));
                   }
                 },
                 "trainingInput.masterConfig.containerEnv"}),
    CaseName);

// A role's environment and own arguments (extras): named as validate.h says.
INSTANTIATE_TEST_SUITE_P(
    Extras, ExecLimitRules,
    ::testing::Values(RuleCase{"PlainVariables", ContainerJob,
                               [](Job& j) {
                                 MasterExtras(j).env = {{"MODE", "train"}, {"EMPTY", ""}};
                               },
                               ""},
                      RuleCase{"NameWithEquals", ContainerJob,
                               [](Job& j) {
                                 MasterExtras(j).env = {{"A=B", "x"}};
                               },
                               "trainingInput.masterConfig.containerEnv[0].name"},
                      RuleCase{"EmptyName", ContainerJob,
                               [](Job& j) {
                                 MasterExtras(j).env = {{"", "x"}};
                               },
                               "trainingInput.masterConfig.containerEnv[0].name"},
                      RuleCase{"NulInName", ContainerJob,
                               [](Job& j) {
                                 MasterExtras(j).env = {{"OK", "x"}, {"A" + kNul, "x"}};
                               },
                               "trainingInput.masterConfig.containerEnv[1].name"},
                      RuleCase{"NulInValue", GpuContainerJob,
                               [](Job& j) {
                                 WorkerExtras(j).env = {{"A", "x" + kNul + "y"}};
                               },
                               "trainingInput.workerConfig.containerEnv[0].value"},
                      RuleCase{"LongVariable", ContainerJob,
                               [](Job& j) {
                                 MasterExtras(j).env = {{"A", std::string(kMaxArgument - 1, 'x')}};
                               },
                               "trainingInput.masterConfig.containerEnv[0]"},
                      RuleCase{"ProcessEnvironment", RuntimeJob,
                               [](Job& j) {
                                 MasterExtras(j).env = {{"A", kNul}};
                               },
                               "trainingInput.masterConfig.env[0].value"},
                      RuleCase{"PackageArgs", RuntimeJob,
                               [](Job& j) {
                                 MasterExtras(j).args = std::vector<std::string>{"--a", kNul};
                               },
                               "trainingInput.masterConfig.args[1]"},
                      RuleCase{"PackageArgsReplaceTrainingArgs", RuntimeJob,
                               [](Job& j) {
                                 In(j).args =
                                     Strings(10, 120'000);  // not this role's: it has its own
                                 MasterExtras(j).args = std::vector<std::string>{"--a"};
                               },
                               ""}),
    CaseName);

}  // namespace
}  // namespace trainyard::validate::testing
