#include "run/slurm/batch_script.h"

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::run::slurm {
namespace {

using std::chrono::seconds;

// A master, two workers and a parameter server, as run/ asks for them.
ClusterJobRequest MasterWorkersPs() {
  return ClusterJobRequest{.name = "ty-p-job",
                           .components = {ComponentRequest{.role = "master",
                                                           .tasks = 1,
                                                           .cpus_per_task = 4,
                                                           .memory_mib = 15360,
                                                           .accelerator = "NVIDIA_TESLA_T4",
                                                           .accelerator_count = 1},
                                          ComponentRequest{.role = "worker",
                                                           .tasks = 2,
                                                           .cpus_per_task = 8,
                                                           .memory_mib = 30720,
                                                           .accelerator = "NVIDIA_TESLA_T4",
                                                           .accelerator_count = 2},
                                          ComponentRequest{.role = "parameter_server",
                                                           .tasks = 1,
                                                           .cpus_per_task = 2,
                                                           .memory_mib = 7680}},
                           .task_command = {"/opt/trainyard/bin/trainyard", "batch-task",
                                            "--job=projects/p/jobs/job", "--note=it's $HOME"},
                           .working_dir = "/data/jobs/p/job",
                           .output_path = "/data/jobs/p/job/logs/slurm-batch.log",
                           .time_limit = seconds(3601),
                           .priority = 600};
}

SlurmConfig GpuConfig() {
  return SlurmConfig{.partition = "gpu",
                     .partitions_by_priority = {{.min_priority = 500, .partition = "high"}},
                     .gres_types = {{"NVIDIA_TESLA_T4", "t4"}},
                     .sbatch_options = {"--account=ml"}};
}

TEST(RenderBatchScript, WritesOneComponentPerRole) {
  const Result<std::string> script = RenderBatchScript(MasterWorkersPs(), GpuConfig());
  ASSERT_TRUE(script.ok()) << script.status().ToString();
  EXPECT_EQ(*script, R"(#!/bin/bash
#SBATCH --job-name=ty-p-job
#SBATCH --output=/data/jobs/p/job/logs/slurm-batch.log
#SBATCH --open-mode=append
#SBATCH --chdir=/data/jobs/p/job
#SBATCH --requeue
#SBATCH --time=61
#SBATCH --account=ml
#SBATCH --partition=high
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=4
#SBATCH --mem=15360M
#SBATCH --gres=gpu:t4:1
#SBATCH hetjob
#SBATCH --partition=high
#SBATCH --nodes=2
#SBATCH --ntasks=2
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=8
#SBATCH --mem=30720M
#SBATCH --gres=gpu:t4:2
#SBATCH hetjob
#SBATCH --partition=high
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=2
#SBATCH --mem=7680M
exec srun --het-group=0,1,2 --kill-on-bad-exit=0 '/opt/trainyard/bin/trainyard' 'batch-task' '--job=projects/p/jobs/job' '--note=it'\''s $HOME'
)");
}

TEST(RenderBatchScript, LeavesOutWhatIsNotAskedFor) {
  ClusterJobRequest request{.name = "ty-p-solo",
                            .components = {ComponentRequest{.role = "master"}},
                            .task_command = {"/bin/true"},
                            .working_dir = "/w",
                            .output_path = "/w/out"};
  const Result<std::string> script = RenderBatchScript(request, SlurmConfig{.requeue = false});
  ASSERT_TRUE(script.ok()) << script.status().ToString();
  EXPECT_EQ(*script, R"(#!/bin/bash
#SBATCH --job-name=ty-p-solo
#SBATCH --output=/w/out
#SBATCH --open-mode=append
#SBATCH --chdir=/w
#SBATCH --no-requeue
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=1
exec srun --kill-on-bad-exit=0 '/bin/true'
)");
}

struct TimeCase {
  std::string name;
  seconds limit;
  std::string option;
};

class RenderBatchScriptTimeTest : public ::testing::TestWithParam<TimeCase> {};

TEST_P(RenderBatchScriptTimeTest, RoundsUpToWholeMinutes) {
  ClusterJobRequest request = MasterWorkersPs();
  request.time_limit = GetParam().limit;
  const Result<std::string> script = RenderBatchScript(request, SlurmConfig{});
  ASSERT_TRUE(script.ok()) << script.status().ToString();
  EXPECT_NE(script->find("\n#SBATCH " + GetParam().option + "\n"), std::string::npos) << *script;
}

INSTANTIATE_TEST_SUITE_P(Table, RenderBatchScriptTimeTest,
                         ::testing::Values(TimeCase{"OneSecond", seconds(1), "--time=1"},
                                           TimeCase{"OneMinute", seconds(60), "--time=1"},
                                           TimeCase{"JustOver", seconds(61), "--time=2"},
                                           TimeCase{"OneWeek", seconds(7 * 24 * 3600),
                                                    "--time=10080"}),
                         [](const auto& tc) { return tc.param.name; });

TEST(RenderBatchScript, UsesTheDefaultPartitionBelowEveryRule) {
  ClusterJobRequest request = MasterWorkersPs();
  request.priority = 499;
  const Result<std::string> script = RenderBatchScript(request, GpuConfig());
  ASSERT_TRUE(script.ok()) << script.status().ToString();
  EXPECT_EQ(script->find("--partition=high"), std::string::npos);
  EXPECT_NE(script->find("--partition=gpu"), std::string::npos);
}

TEST(RenderBatchScript, AsksForUntypedGpusWithoutAConfiguredType) {
  const Result<std::string> script = RenderBatchScript(MasterWorkersPs(), SlurmConfig{});
  ASSERT_TRUE(script.ok()) << script.status().ToString();
  EXPECT_NE(script->find("\n#SBATCH --gres=gpu:2\n"), std::string::npos) << *script;
  EXPECT_EQ(script->find("--partition"), std::string::npos) << *script;
}

struct QuoteCase {
  std::string name;
  std::string word;
  std::string quoted;
};

class RenderBatchScriptQuoteTest : public ::testing::TestWithParam<QuoteCase> {};

TEST_P(RenderBatchScriptQuoteTest, QuotesEachWordForTheShell) {
  ClusterJobRequest request = MasterWorkersPs();
  request.task_command = {"/bin/echo", GetParam().word};
  const Result<std::string> script = RenderBatchScript(request, SlurmConfig{});
  ASSERT_TRUE(script.ok()) << script.status().ToString();
  EXPECT_TRUE(script->ends_with(" '/bin/echo' " + GetParam().quoted + "\n")) << *script;
}

INSTANTIATE_TEST_SUITE_P(Table, RenderBatchScriptQuoteTest,
                         ::testing::Values(QuoteCase{"Plain", "abc", "'abc'"},
                                           QuoteCase{"Empty", "", "''"},
                                           QuoteCase{"Quote", "it's", "'it'\\''s'"},
                                           QuoteCase{"OnlyQuotes", "''", "''\\'''\\'''"},
                                           QuoteCase{"ShellSyntax", "$(rm -rf /) `x` \"y\" ;&|",
                                                     "'$(rm -rf /) `x` \"y\" ;&|'"},
                                           QuoteCase{"Newline", "a\nb", "'a\nb'"}),
                         [](const auto& tc) { return tc.param.name; });

struct BadScriptCase {
  std::string name;
  std::function<void(ClusterJobRequest&, SlurmConfig&)> spoil;
  std::string field;
};

class RenderBatchScriptBadTest : public ::testing::TestWithParam<BadScriptCase> {};

TEST_P(RenderBatchScriptBadTest, IsInvalidArgumentNamingTheField) {
  ClusterJobRequest request = MasterWorkersPs();
  SlurmConfig config = GpuConfig();
  GetParam().spoil(request, config);
  const Result<std::string> script = RenderBatchScript(request, config);
  ASSERT_FALSE(script.ok());
  EXPECT_EQ(script.status().code(), Code::kInvalidArgument);
  ASSERT_EQ(script.status().violations().size(), 1u) << script.status().ToString();
  EXPECT_EQ(script.status().violations()[0].field, GetParam().field);
}

using R = ClusterJobRequest;
using C = SlurmConfig;

INSTANTIATE_TEST_SUITE_P(
    Table, RenderBatchScriptBadTest,
    ::testing::Values(
        BadScriptCase{"NoComponents", [](R& r, C&) { r.components.clear(); }, "components"},
        BadScriptCase{"NoTasks", [](R& r, C&) { r.components[1].tasks = 0; },
                      "components[1].tasks"},
        BadScriptCase{"NoCpus", [](R& r, C&) { r.components[2].cpus_per_task = 0; },
                      "components[2].cpus_per_task"},
        BadScriptCase{"NegativeMemory", [](R& r, C&) { r.components[0].memory_mib = -1; },
                      "components[0].memory_mib"},
        BadScriptCase{"NegativeAccelerators",
                      [](R& r, C&) { r.components[0].accelerator_count = -1; },
                      "components[0].accelerator_count"},
        BadScriptCase{"NoCommand", [](R& r, C&) { r.task_command.clear(); }, "task_command"},
        BadScriptCase{"NulInCommand", [](R& r, C&) { r.task_command[1] = std::string("a\0b", 3); },
                      "task_command[1]"},
        BadScriptCase{"EmptyName", [](R& r, C&) { r.name = ""; }, "name"},
        BadScriptCase{"NameWithSpace", [](R& r, C&) { r.name = "ty p"; }, "name"},
        BadScriptCase{"NameWithSlash", [](R& r, C&) { r.name = "ty/p"; }, "name"},
        BadScriptCase{"RelativeWorkingDir", [](R& r, C&) { r.working_dir = "data/jobs"; },
                      "working_dir"},
        BadScriptCase{"WorkingDirWithSpace", [](R& r, C&) { r.working_dir = "/data/my jobs"; },
                      "working_dir"},
        BadScriptCase{"EmptyOutput", [](R& r, C&) { r.output_path = ""; }, "output_path"},
        BadScriptCase{"OutputWithNewline", [](R& r, C&) { r.output_path = "/a\n#SBATCH --x"; },
                      "output_path"},
        BadScriptCase{"ZeroTimeLimit", [](R& r, C&) { r.time_limit = seconds(0); }, "time_limit"},
        BadScriptCase{"OptionWithSpace",
                      [](R&, C& c) { c.sbatch_options.push_back("--comment=a b"); },
                      "sbatch_options[1]"},
        BadScriptCase{"PartitionWithSpace",
                      [](R&, C& c) { c.partitions_by_priority[0].partition = "a b"; },
                      "partition"}),
    [](const auto& tc) { return tc.param.name; });

TEST(RenderBatchScript, ReportsEveryProblem) {
  ClusterJobRequest request = MasterWorkersPs();
  request.name = "";
  request.components[0].tasks = 0;
  request.working_dir = "relative";
  const Result<std::string> script = RenderBatchScript(request, SlurmConfig{});
  ASSERT_FALSE(script.ok());
  std::vector<std::string> fields;
  for (const FieldViolation& violation : script.status().violations()) {
    fields.push_back(violation.field);
  }
  EXPECT_EQ(fields, (std::vector<std::string>{"name", "components[0].tasks", "working_dir"}));
}

struct GresCase {
  std::string name;
  std::string accelerator;
  int count;
  std::string gres;
};

class GresForTest : public ::testing::TestWithParam<GresCase> {};

TEST_P(GresForTest, UsesTheConfiguredType) {
  const SlurmConfig config{
      .gres_types = {{"NVIDIA_TESLA_T4", "t4"}, {"NVIDIA_TESLA_A100", "a100"}}};
  EXPECT_EQ(GresFor(GetParam().accelerator, GetParam().count, config), GetParam().gres);
}

INSTANTIATE_TEST_SUITE_P(Table, GresForTest,
                         ::testing::Values(GresCase{"Typed", "NVIDIA_TESLA_T4", 1, "gpu:t4:1"},
                                           GresCase{"TypedEight", "NVIDIA_TESLA_A100", 8,
                                                    "gpu:a100:8"},
                                           GresCase{"Untyped", "NVIDIA_TESLA_V100", 2, "gpu:2"},
                                           GresCase{"NoAccelerator", "", 1, "gpu:1"}),
                         [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::run::slurm
