// The `trainyard` command line driven in-process through `Run`: exit codes, what goes to stdout
// and stderr, and the wiring of flags to verbs.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.h"
#include "cli/local/temp_dir.h"
#include "cli/outcome.h"
#include "cli/output/table.h"

namespace trainyard::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using testing::Outcome;

Outcome RunCli(const std::vector<std::string>& args, const Environment& env = {.project = "p"}) {
  std::ostringstream out;
  std::ostringstream err;
  const int rc = Run(args, out, err, env);
  return {rc, out.str(), err.str()};
}

std::vector<std::string> Submit(std::vector<std::string> extra) {
  std::vector<std::string> args = {
      "jobs",          "submit",       "training",          "job_1",
      "--region",      "us-central1",  "--packages",        "gs://bkt1/a.tar.gz",
      "--module-name", "trainer.task", "--runtime-version", "2.11"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(SubmitTraining, DryRunPrintsTheCreateBodyOnOneLine) {
  const Outcome o = RunCli(Submit({"--dry-run", "--", "--epochs=3", "a b"}));
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1);
  EXPECT_EQ(nlohmann::json::parse(o.out), nlohmann::json::parse(R"({"jobId":"job_1",
      "trainingInput":{"packageUris":["gs://bkt1/a.tar.gz"],"pythonModule":"trainer.task",
      "args":["--epochs=3","a b"],"region":"us-central1","runtimeVersion":"2.11",
      "enableWebAccess":false}})"));
  EXPECT_THAT(o.err, HasSubstr("Would POST to /v1/projects/p/jobs"));
}

TEST(SubmitTraining, ProjectComesFromTheFlagThenTheEnvironmentThenDefault) {
  EXPECT_THAT(RunCli(Submit({"--dry-run", "--project", "flag"})).err,
              HasSubstr("/v1/projects/flag/jobs"));
  EXPECT_THAT(RunCli(Submit({"--dry-run"}), {.project = "env"}).err,
              HasSubstr("/v1/projects/env/jobs"));
  EXPECT_THAT(RunCli(Submit({"--dry-run"}), {}).err, HasSubstr("/v1/projects/default/jobs"));
}

TEST(SubmitTraining, RegionIsRequiredButMayComeFromTheEnvironment) {
  const std::vector<std::string> args = {
      "jobs",          "submit", "training",          "j",    "--packages", "gs://bkt1/a.tar.gz",
      "--module-name", "t.m",    "--runtime-version", "2.11", "--dry-run"};
  const Outcome missing = RunCli(args);
  EXPECT_EQ(missing.rc, 1);
  EXPECT_THAT(missing.err, StartsWith("ERROR: (trainyard.jobs.submit.training) The required "
                                      "property [region] is not currently set."));
  const Outcome from_env = RunCli(args, {.region = "us-central1"});
  EXPECT_EQ(from_env.rc, 0) << from_env.err;
  EXPECT_THAT(from_env.out, HasSubstr(R"("region":"us-central1")"));
}

TEST(SubmitTraining, BadFlagValueIsOneErrorLine) {
  const Outcome o = RunCli(Submit({"--master-accelerator", "count=x,type=nvidia-tesla-t4"}));
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err,
            "ERROR: (trainyard.jobs.submit.training) argument --master-accelerator: Invalid value "
            "[x] for key [count]: must be an integer.\n");
}

TEST(SubmitTraining, UnknownFlagIsAUsageError) {
  const Outcome o = RunCli(Submit({"--no-such-flag"}));
  EXPECT_EQ(o.rc, 2);
  EXPECT_THAT(o.err, StartsWith("ERROR: (trainyard.jobs.submit.training) "));
  EXPECT_THAT(o.err, HasSubstr("--no-such-flag"));
}

TEST(SubmitTraining, RefusesAnInvalidRequestBeforeSendingIt) {
  const Outcome o =
      RunCli(Submit({"--dry-run", "--scale-tier", "custom", "--master-machine-type",
                     "n1-standard-8", "--master-accelerator", "type=nvidia-tesla-t4,count=3"}));
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_THAT(o.err, HasSubstr("nothing was submitted"));
  EXPECT_THAT(o.err, HasSubstr("\ntrainingInput.masterConfig.acceleratorConfig.count: "));
}

TEST(SubmitTraining, APackagePathWithoutAStagingLocationIsRefusedBeforeAnyRequest) {
  const Outcome o = RunCli(Submit({"--package-path", "/nonexistent/trainer"}),
                           {.server = "http://127.0.0.1:1/", .project = "p"});
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.err,
            "ERROR: (trainyard.jobs.submit.training) If local packages are provided, the "
            "`--staging-bucket` or `--job-dir` flag must be given.\n");
}

TEST(SubmitTraining, RefusesAServerUrlItCannotUse) {
  const Outcome o = RunCli(Submit({"--server", "ftp://ml.example.com/"}));
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.err,
            "ERROR: (trainyard.jobs.submit.training) Invalid server URL "
            "[ftp://ml.example.com/]: it does not start with http:// or https://. "
            "Expected http[s]://HOST[:PORT]/, such as http://127.0.0.1:8470/.\n");
}

TEST(SubmitTraining, StreamLogsWithAsyncIsRefusedBeforeAnyRequest) {
  const Outcome o = RunCli(Submit({"--stream-logs", "--async"}),
                           {.server = "http://127.0.0.1:1/", .project = "p"});
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.err,
            "ERROR: (trainyard.jobs.submit.training) argument --async: At most one of --async | "
            "--stream-logs can be specified.\n");
}

// Checks every API verb makes before it connects: these runs never reach a server.
struct UsageCase {
  std::string name;
  std::vector<std::string> args;
  int rc;
  std::string err;
};

class ApiVerbUsageTest : public ::testing::TestWithParam<UsageCase> {};

TEST_P(ApiVerbUsageTest, FailsBeforeConnecting) {
  const Outcome o = RunCli(GetParam().args, {.server = "http://127.0.0.1:1/", .project = "p"});
  EXPECT_EQ(o.rc, GetParam().rc);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, GetParam().err);
}

INSTANTIATE_TEST_SUITE_P(
    Verbs, ApiVerbUsageTest,
    ::testing::Values(
        UsageCase{"ListLimitZero",
                  {"jobs", "list", "--limit", "0"},
                  1,
                  "ERROR: (trainyard.jobs.list) argument --limit: Value must be greater than or "
                  "equal to 1; received: 0\n"},
        UsageCase{"ListPageSizeNotANumber",
                  {"jobs", "list", "--page-size", "many"},
                  1,
                  "ERROR: (trainyard.jobs.list) argument --page-size: Value must be an integer; "
                  "received: many\n"},
        UsageCase{"DescribeUnknownFormat",
                  {"jobs", "describe", "j", "--format", "table"},
                  1,
                  "ERROR: (trainyard.jobs.describe) argument --format: Invalid choice: 'table'. "
                  "Valid choices are [json, yaml].\n"},
        UsageCase{"UpdateWithoutLabelFlags",
                  {"jobs", "update", "j"},
                  1,
                  "ERROR: (trainyard.jobs.update) No updates requested.\n"},
        UsageCase{"UpdateBadLabel",
                  {"jobs", "update", "j", "--update-labels", "a"},
                  1,
                  "ERROR: (trainyard.jobs.update) argument --update-labels: Bad syntax for dict "
                  "arg: [a]. Expected KEY=VALUE pairs separated by commas.\n"},
        UsageCase{"UpdateClearAndRemove",
                  {"jobs", "update", "j", "--clear-labels", "--remove-labels", "a"},
                  1,
                  "ERROR: (trainyard.jobs.update) argument --clear-labels: At most one of "
                  "--clear-labels | --remove-labels can be specified.\n"},
        UsageCase{"StreamLogsPollingIntervalZero",
                  {"jobs", "stream-logs", "j", "--polling-interval", "0"},
                  1,
                  "ERROR: (trainyard.jobs.stream-logs) argument --polling-interval: Value must be "
                  "greater than or equal to 1; received: 0\n"},
        UsageCase{"StreamLogsPollingIntervalNotANumber",
                  {"jobs", "stream-logs", "j", "--polling-interval", "1.5"},
                  1,
                  "ERROR: (trainyard.jobs.stream-logs) argument --polling-interval: Value must be "
                  "an integer; received: 1.5\n"},
        UsageCase{"StreamLogsTakesNoUserArgs",
                  {"jobs", "stream-logs", "j", "--", "x"},
                  2,
                  "ERROR: (trainyard.jobs.stream-logs) unrecognized arguments after `--`\n"},
        UsageCase{"CancelTakesNoUserArgs",
                  {"jobs", "cancel", "j", "--", "x"},
                  2,
                  "ERROR: (trainyard.jobs.cancel) unrecognized arguments after `--`\n"},
        // `--flag=` is an empty value (here an empty first pool), not the next word.
        UsageCase{
            "VertexEmptyFirstPool",
            {"ai", "custom-jobs", "create", "--region", "r", "--display-name", "x",
             "--worker-pool-spec=", "--worker-pool-spec=machine-type=a,container-image-uri=b"},
            1,
            "ERROR: (trainyard.ai.custom-jobs.create) Invalid value for "
            "[--worker-pool-spec]: Empty value is not allowed for the first "
            "`--worker-pool-spec` flag.\n"},
        UsageCase{"VertexDescribeNeedsARegion",
                  {"ai", "custom-jobs", "describe", "123"},
                  1,
                  "ERROR: (trainyard.ai.custom-jobs.describe) Error parsing [custom_job].\nThe "
                  "[custom job] resource is not properly specified.\nFailed to find attribute "
                  "[region]. The attribute can be set in the following ways: \n- provide the "
                  "argument `--region` on the command line\n- set the environment variable "
                  "`TRAINYARD_REGION`\n"},
        UsageCase{"VertexListLimitZero",
                  {"ai", "hp-tuning-jobs", "list", "--region", "r", "--limit", "0"},
                  1,
                  "ERROR: (trainyard.ai.hp-tuning-jobs.list) argument --limit: Value must be "
                  "greater than or equal to 1; received: 0\n"},
        UsageCase{"VertexStreamLogsPollingIntervalZero",
                  {"ai", "hp-tuning-jobs", "stream-logs", "1", "--region", "r",
                   "--polling-interval", "0"},
                  1,
                  "ERROR: (trainyard.ai.hp-tuning-jobs.stream-logs) argument --polling-interval: "
                  "Value must be greater than or equal to 1; received: 0\n"},
        UsageCase{"VertexCreateTakesNoUserArgs",
                  {"ai", "hp-tuning-jobs", "create", "--display-name", "h", "--config", "c.yaml",
                   "--", "x"},
                  2,
                  "ERROR: (trainyard.ai.hp-tuning-jobs.create) unrecognized arguments after "
                  "`--`\n"}),
    [](const auto& tc) { return tc.param.name; });

TEST(SubmitTraining, AsyncIsAcceptedWithADeprecationWarning) {
  const Outcome o = RunCli(Submit({"--dry-run", "--async"}));
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_THAT(o.err, HasSubstr("WARNING: The --async flag is deprecated"));
}

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("trainyard-cli-test-");
    ASSERT_TRUE(dir.ok());
    dir_.emplace(*std::move(dir));
  }
  std::string Write(const std::string& name, const std::string& text) {
    const std::filesystem::path path = dir_->path() / name;
    std::ofstream(path) << text;
    return path.string();
  }
  std::optional<TempDir> dir_;
};

TEST_F(ConfigFileTest, FlagsOverrideTheFile) {
  const std::string config = Write("job.yaml", R"(
trainingInput:
  runtimeVersion: "2.1"
  pythonModule: from.file
  args: [--from-file]
)");
  const Outcome o = RunCli(Submit({"--dry-run", "--config", config}));
  ASSERT_EQ(o.rc, 0) << o.err;
  const auto body = nlohmann::json::parse(o.out);
  EXPECT_EQ(body["trainingInput"]["runtimeVersion"], "2.11");
  EXPECT_EQ(body["trainingInput"]["pythonModule"], "trainer.task");
  EXPECT_EQ(body["trainingInput"]["args"], nlohmann::json::array({"--from-file"}));
}

TEST_F(ConfigFileTest, UploadingLocalPackagesNeedsAReachableServer) {
  const std::string package = Write("trainer-0.1.tar.gz", "not really a tarball");
  const Outcome o = RunCli(Submit({"--packages", package, "--staging-bucket", "gs://bkt1"}),
                           {.server = "http://127.0.0.1:1/", .project = "p"});
  EXPECT_EQ(o.rc, 1);
  EXPECT_THAT(o.err, StartsWith("ERROR: (trainyard.jobs.submit.training) UNAVAILABLE: Could not "
                                "connect to the trainyard server at [http://127.0.0.1:1/]"));
}

TEST_F(ConfigFileTest, MissingFileIsOneErrorLine) {
  const std::string path = (dir_->path() / "absent.yaml").string();
  const Outcome o = RunCli(Submit({"--dry-run", "--config", path}));
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.err, "ERROR: (trainyard.jobs.submit.training) Failed to load YAML from [" + path +
                       "]: Unable to read file [" + path + "]: No such file or directory\n");
}

TEST_F(ConfigFileTest, MalformedFileNamesTheFile) {
  const std::string path = Write("bad.yaml", "trainingInput: {workerCount: many}\n");
  const Outcome o = RunCli(Submit({"--dry-run", "--config", path}));
  EXPECT_EQ(o.rc, 1);
  EXPECT_THAT(o.err, StartsWith("ERROR: (trainyard.jobs.submit.training) Invalid job "
                                "configuration in [" +
                                path + "]: "));
  EXPECT_THAT(o.err, HasSubstr("workerCount"));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1);
}

TEST(ValidateVerb, SaysValidOrListsEveryViolation) {
  std::vector<std::string> args = Submit({});
  args.erase(args.begin() + 1, args.begin() + 3);  // "jobs validate job_1 ..."
  args.insert(args.begin() + 1, "validate");
  const Outcome valid = RunCli(args);
  EXPECT_EQ(valid.rc, 0) << valid.err;
  EXPECT_EQ(valid.out, "Job request is valid.\n");

  args.insert(args.end(), {"--scale-tier", "custom", "--master-machine-type", "n1-standard-8",
                           "--master-accelerator", "type=nvidia-tesla-t4,count=3"});
  const Outcome invalid = RunCli(args);
  EXPECT_EQ(invalid.rc, 1);
  EXPECT_THAT(invalid.out, StartsWith("trainingInput.masterConfig.acceleratorConfig.count: "));
  EXPECT_THAT(invalid.err, StartsWith("ERROR: (trainyard.jobs.validate) The job request is "
                                      "invalid"));
}

TEST(CatalogVerb, PrintsAlignedTablesWithUpperCaseHeaders) {
  const Outcome o = RunCli({"catalog", "scale-tiers"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_THAT(o.out, StartsWith("NAME        FLAG_VALUE  MASTER"));
  EXPECT_THAT(o.out, HasSubstr("\nBASIC_GPU   basic-gpu "));
  for (const char* listing : {"machine-types", "accelerators", "regions"}) {
    const Outcome table = RunCli({"catalog", listing});
    EXPECT_EQ(table.rc, 0) << listing;
    EXPECT_THAT(table.out, StartsWith("NAME  ")) << listing;
  }
}

TEST(CatalogVerb, PrintsJson) {
  const Outcome o = RunCli({"catalog", "accelerators", "--format", "json"});
  ASSERT_EQ(o.rc, 0) << o.err;
  const auto listing = nlohmann::json::parse(o.out);
  ASSERT_TRUE(listing.is_array());
  bool found = false;
  for (const auto& accelerator : listing) {
    found = found || (accelerator["name"] == "NVIDIA_TESLA_T4" &&
                      accelerator["flagValue"] == "nvidia-tesla-t4");
  }
  EXPECT_TRUE(found) << o.out;
  EXPECT_EQ(RunCli({"catalog", "regions", "--format", "yaml"}).rc, 1);
}

TEST(Cli, HelpAndMissingCommands) {
  const Outcome help = RunCli({"jobs", "submit", "training", "--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_THAT(help.out, HasSubstr("--master-accelerator"));
  EXPECT_THAT(help.out, HasSubstr("--evaluator-count"));
  EXPECT_THAT(RunCli({"jobs", "list", "--help"}).out, HasSubstr("sends EXPR to the server"));
  EXPECT_EQ(RunCli({}).rc, 2);
  EXPECT_EQ(RunCli({"catalog", "regions", "--", "x"}).rc, 2);
}

TEST(Table, PadsColumnsToTheWidestCell) {
  EXPECT_EQ(FormatTable({"NAME", "N"}, {{"a", "1"}, {"long-name", ""}}),
            "NAME       N\n"
            "a          1\n"
            "long-name\n");
}

}  // namespace
}  // namespace trainyard::cli
