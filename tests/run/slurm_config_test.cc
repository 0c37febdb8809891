#include "run/slurm/slurm_config.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::run::slurm {
namespace {

Result<SlurmConfig> Parse(std::string_view yaml) {
  return ParseSlurmConfig(yaml, catalog::Catalog::Builtin());
}

TEST(ParseSlurmConfig, ReadsEveryKey) {
  const Result<SlurmConfig> config = Parse(R"(
partition: gpu               # the default
partitions_by_priority:
  - min_priority: 500
    partition: high
  - {min_priority: 0, partition: low.q}
gres_types:
  NVIDIA_TESLA_T4: t4
  NVIDIA_TESLA_V100: v100-sxm2
requeue: false
finished_jobs: jobcomp
ports: {first: 30000, count: 500}
node_addresses:
  n1: 127.0.0.1
  gpu-01: gpu-01.cluster.example
sbatch_options: ["--account=ml", "--qos=normal"]
)");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  const SlurmConfig expected{
      .partition = "gpu",
      .partitions_by_priority = {PartitionRule{.min_priority = 500, .partition = "high"},
                                 PartitionRule{.min_priority = 0, .partition = "low.q"}},
      .gres_types = {{"NVIDIA_TESLA_T4", "t4"}, {"NVIDIA_TESLA_V100", "v100-sxm2"}},
      .requeue = false,
      .finished_jobs = FinishedJobs::kJobcomp,
      .first_port = 30000,
      .port_count = 500,
      .node_addresses = {{"gpu-01", "gpu-01.cluster.example"}, {"n1", "127.0.0.1"}},
      .sbatch_options = {"--account=ml", "--qos=normal"}};
  EXPECT_EQ(*config, expected);
}

struct DefaultsCase {
  std::string name;
  std::string yaml;
};

class ParseSlurmConfigDefaultsTest : public ::testing::TestWithParam<DefaultsCase> {};

TEST_P(ParseSlurmConfigDefaultsTest, GivesTheDefaults) {
  const Result<SlurmConfig> config = Parse(GetParam().yaml);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(*config, SlurmConfig{});
  EXPECT_TRUE(config->requeue);
  EXPECT_EQ(config->finished_jobs, FinishedJobs::kSacct);
  EXPECT_EQ(config->first_port, 20000);
  EXPECT_EQ(config->port_count, 10000);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseSlurmConfigDefaultsTest,
    ::testing::Values(
        DefaultsCase{"EmptyFile", ""}, DefaultsCase{"OnlyComments", "# nothing set\n"},
        DefaultsCase{"EmptyPartition", "partition: \"\"\n"},
        DefaultsCase{"NullValues",
                     "partition:\npartitions_by_priority:\ngres_types:\nnode_addresses:\n"
                     "sbatch_options:\n"},
        DefaultsCase{"EmptyCollections",
                     "partitions_by_priority: []\ngres_types: {}\nsbatch_options: []\n"},
        DefaultsCase{"DefaultWords",
                     "requeue: True\nfinished_jobs: sacct\nports: {first: 20000, count: 10000}\n"}),
    [](const auto& tc) { return tc.param.name; });

TEST(ParseSlurmConfig, ReadsTheOtherWords) {
  const Result<SlurmConfig> config = Parse("finished_jobs: none\nrequeue: TRUE\n");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->finished_jobs, FinishedJobs::kNone);
  EXPECT_TRUE(config->requeue);
}

TEST(ParseSlurmConfig, TakesTheWholePortRange) {
  const Result<SlurmConfig> config = Parse("ports: {first: 1024, count: 64512}\n");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->first_port, 1024);
  EXPECT_EQ(config->port_count, 64512);
}

struct BadConfigCase {
  std::string name;
  std::string yaml;
  std::string field;
  std::string description;  // a part of it
};

class ParseSlurmConfigBadTest : public ::testing::TestWithParam<BadConfigCase> {};

TEST_P(ParseSlurmConfigBadTest, IsInvalidArgumentNamingThePath) {
  const Result<SlurmConfig> config = Parse(GetParam().yaml);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), Code::kInvalidArgument);
  ASSERT_EQ(config.status().violations().size(), 1u) << config.status().ToString();
  EXPECT_EQ(config.status().violations()[0].field, GetParam().field);
  EXPECT_NE(config.status().violations()[0].description.find(GetParam().description),
            std::string::npos)
      << config.status().violations()[0].description;
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseSlurmConfigBadTest,
    ::testing::Values(
        BadConfigCase{"UnknownKey", "partiton: gpu\n", "partiton", "not a known key"},
        BadConfigCase{"RepeatedKey", "requeue: true\nrequeue: false\n", "requeue", "repeated"},
        BadConfigCase{"PartitionWithSpace", "partition: 'g pu'\n", "partition", "partition name"},
        BadConfigCase{"PartitionList", "partition: [gpu]\n", "partition", "partition name"},
        BadConfigCase{"RulesNotAList", "partitions_by_priority: high\n", "partitions_by_priority",
                      "list"},
        BadConfigCase{"RuleNotAMapping", "partitions_by_priority: [high]\n",
                      "partitions_by_priority[0]", "mapping"},
        BadConfigCase{"RulePriorityTooHigh",
                      "partitions_by_priority:\n- {min_priority: 0, partition: a}\n"
                      "- {min_priority: 1001, partition: b}\n",
                      "partitions_by_priority[1].min_priority", "from 0 to 1000; got \"1001\""},
        BadConfigCase{"RulePriorityNegative",
                      "partitions_by_priority: [{min_priority: -1, partition: a}]\n",
                      "partitions_by_priority[0].min_priority", "from 0 to 1000"},
        BadConfigCase{"RulePriorityNotANumber",
                      "partitions_by_priority: [{min_priority: high, partition: a}]\n",
                      "partitions_by_priority[0].min_priority", "whole number"},
        BadConfigCase{"RulePriorityRepeated",
                      "partitions_by_priority:\n- {min_priority: 5, partition: a}\n"
                      "- {min_priority: 5, partition: b}\n",
                      "partitions_by_priority[1].min_priority",
                      "already the min_priority of partitions_by_priority[0]"},
        BadConfigCase{"RuleWithoutPartition", "partitions_by_priority: [{min_priority: 5}]\n",
                      "partitions_by_priority[0].partition", "required"},
        BadConfigCase{"RuleWithoutPriority", "partitions_by_priority: [{partition: a}]\n",
                      "partitions_by_priority[0].min_priority", "required"},
        BadConfigCase{"RuleEmptyPartition",
                      "partitions_by_priority: [{min_priority: 5, partition: ''}]\n",
                      "partitions_by_priority[0].partition", "partition name"},
        BadConfigCase{"RulePartitionWithSlash",
                      "partitions_by_priority: [{min_priority: 5, partition: a/b}]\n",
                      "partitions_by_priority[0].partition", "partition name"},
        BadConfigCase{"RuleUnknownKey",
                      "partitions_by_priority: [{min_priority: 5, partition: a, qos: x}]\n",
                      "partitions_by_priority[0].qos", "not a known key"},
        BadConfigCase{"GresNotAMapping", "gres_types: [t4]\n", "gres_types", "mapping"},
        BadConfigCase{"GresUnknownAccelerator", "gres_types: {FOO: t4}\n", "gres_types.FOO",
                      "catalog"},
        BadConfigCase{"GresTypeWithSpace", "gres_types: {NVIDIA_TESLA_T4: 't 4'}\n",
                      "gres_types.NVIDIA_TESLA_T4", "GRES type"},
        BadConfigCase{"GresTypeWithColon", "gres_types: {NVIDIA_TESLA_T4: 'gpu:t4'}\n",
                      "gres_types.NVIDIA_TESLA_T4", "GRES type"},
        BadConfigCase{"GresTypeEmpty", "gres_types: {NVIDIA_TESLA_T4: ''}\n",
                      "gres_types.NVIDIA_TESLA_T4", "GRES type"},
        BadConfigCase{"GresRepeated", "gres_types: {NVIDIA_TESLA_T4: a, NVIDIA_TESLA_T4: b}\n",
                      "gres_types.NVIDIA_TESLA_T4", "repeated"},
        BadConfigCase{"RequeueYes", "requeue: yes\n", "requeue", "true or false"},
        BadConfigCase{"FinishedJobsUnknown", "finished_jobs: slurmdbd\n", "finished_jobs",
                      "sacct, jobcomp or none"},
        BadConfigCase{"PortsNotAMapping", "ports: 20000\n", "ports", "mapping"},
        BadConfigCase{"PortsUnknownKey", "ports: {last: 30000}\n", "ports.last", "not a known key"},
        BadConfigCase{"FirstPortPrivileged", "ports: {first: 80}\n", "ports.first",
                      "1024 to 65535"},
        BadConfigCase{"FirstPortTooHigh", "ports: {first: 70000, count: 1}\n", "ports.first",
                      "1024 to 65535"},
        BadConfigCase{"PortCountZero", "ports: {count: 0}\n", "ports.count", "from 1"},
        BadConfigCase{"PortCountNotANumber", "ports: {count: many}\n", "ports.count",
                      "whole number"},
        BadConfigCase{"PortsPastTheEnd", "ports: {first: 60000, count: 10000}\n", "ports.count",
                      "end at 69999, past 65535"},
        BadConfigCase{"DefaultCountPastTheEnd", "ports: {first: 60000}\n", "ports.count",
                      "end at 69999"},
        BadConfigCase{"NodeAddressesNotAMapping", "node_addresses: [n1]\n", "node_addresses",
                      "mapping"},
        BadConfigCase{"NodeAddressEmpty", "node_addresses: {n1: ''}\n", "node_addresses.n1",
                      "host name or IP address"},
        BadConfigCase{"NodeAddressWithSpace", "node_addresses: {n1: 'a b'}\n", "node_addresses.n1",
                      "host name or IP address"},
        BadConfigCase{"NodeNameWithSpace", "node_addresses: {'n 1': 10.0.0.1}\n",
                      "node_addresses.n 1", "node name"},
        BadConfigCase{"OptionsNotAList", "sbatch_options: --account=ml\n", "sbatch_options",
                      "list"},
        BadConfigCase{"OptionShort", "sbatch_options: ['-Aml']\n", "sbatch_options[0]",
                      "starting with --"},
        BadConfigCase{"OptionWithNewline",
                      "sbatch_options: [\"--account=ml\", \"--comment=a\\nb\"]\n",
                      "sbatch_options[1]", "newlines"},
        BadConfigCase{"OptionWithSpace", "sbatch_options: ['--account ml']\n", "sbatch_options[0]",
                      "spaces"},
        BadConfigCase{"OptionNotAString", "sbatch_options: [[--a]]\n", "sbatch_options[0]",
                      "sbatch option"}),
    [](const auto& tc) { return tc.param.name; });

TEST(ParseSlurmConfig, ReportsEveryProblem) {
  const Result<SlurmConfig> config =
      Parse("requeue: maybe\nports: {first: 1}\ngres_types: {FOO: t4, BAR: t4}\n");
  ASSERT_FALSE(config.ok());
  std::vector<std::string> fields;
  for (const FieldViolation& violation : config.status().violations()) {
    fields.push_back(violation.field);
  }
  EXPECT_EQ(fields, (std::vector<std::string>{"gres_types.FOO", "gres_types.BAR", "ports.first",
                                              "requeue"}));
}

struct NotAConfigCase {
  std::string name;
  std::string yaml;
  std::string message;  // a part of it
};

class ParseSlurmConfigNotAConfigTest : public ::testing::TestWithParam<NotAConfigCase> {};

TEST_P(ParseSlurmConfigNotAConfigTest, IsInvalidArgument) {
  const Result<SlurmConfig> config = Parse(GetParam().yaml);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), Code::kInvalidArgument);
  EXPECT_NE(config.status().message().find(GetParam().message), std::string::npos)
      << config.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseSlurmConfigNotAConfigTest,
    ::testing::Values(
        NotAConfigCase{"UnclosedList", "requeue: true\npartition: [gpu\n", "not valid YAML: line"},
        NotAConfigCase{"BadIndent", "ports:\n  first: 1\n first: 2\n", "not valid YAML: line"},
        NotAConfigCase{"AList", "- partition: gpu\n", "must be a YAML mapping"},
        NotAConfigCase{"AScalar", "gpu\n", "must be a YAML mapping"}),
    [](const auto& tc) { return tc.param.name; });

struct PartitionCase {
  std::string name;
  std::int32_t priority;
  std::string partition;
};

class PartitionForTest : public ::testing::TestWithParam<PartitionCase> {};

TEST_P(PartitionForTest, TakesTheHighestRuleAtOrBelowThePriority) {
  const SlurmConfig config{.partition = "default",
                           .partitions_by_priority = {{.min_priority = 500, .partition = "high"},
                                                      {.min_priority = 100, .partition = "mid"},
                                                      {.min_priority = 900, .partition = "top"}}};
  EXPECT_EQ(PartitionFor(GetParam().priority, config), GetParam().partition);
}

INSTANTIATE_TEST_SUITE_P(Table, PartitionForTest,
                         ::testing::Values(PartitionCase{"BelowEveryRule", 99, "default"},
                                           PartitionCase{"Zero", 0, "default"},
                                           PartitionCase{"AtARule", 100, "mid"},
                                           PartitionCase{"BetweenRules", 499, "mid"},
                                           PartitionCase{"AtTheMiddleRule", 500, "high"},
                                           PartitionCase{"AtTheTop", 1000, "top"}),
                         [](const auto& tc) { return tc.param.name; });

TEST(PartitionFor, IsThePartitionWithoutRules) {
  EXPECT_EQ(PartitionFor(700, SlurmConfig{.partition = "gpu"}), "gpu");
  EXPECT_EQ(PartitionFor(700, SlurmConfig{}), "");
}

TEST(FinishedJobsName, IsTheWordTheFileUses) {
  EXPECT_EQ(FinishedJobsName(FinishedJobs::kSacct), "sacct");
  EXPECT_EQ(FinishedJobsName(FinishedJobs::kJobcomp), "jobcomp");
  EXPECT_EQ(FinishedJobsName(FinishedJobs::kNone), "none");
}

}  // namespace
}  // namespace trainyard::run::slurm
