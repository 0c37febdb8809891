#include "model/config_file.h"

#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/json_codec.h"
#include "model/violation_matchers.h"
#include "support/build_paths.h"

namespace trainyard::model {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ReadTestdata(const std::string& name) {
  std::ifstream file(::trainyard::testing::SourceDir() + "/tests/model/testdata/" + name);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

struct SeedCase {
  const char* name;
  const char* file;
  const char* master_type;
  const char* worker_type;
  std::int64_t worker_count;
  std::int64_t parameter_server_count;
  const char* worker_accelerator;  // "" when the worker has no acceleratorConfig
  std::int64_t worker_accelerator_count;
  const char* tpu_tf_version;
};

class SeedConfigTest : public ::testing::TestWithParam<SeedCase> {};

TEST_P(SeedConfigTest, Parses) {
  const SeedCase& tc = GetParam();
  const std::string text = ReadTestdata(tc.file);
  ASSERT_FALSE(text.empty()) << tc.file;
  const Result<Job> job = ParseConfigText(text, tc.file);
  ASSERT_TRUE(job.ok()) << DescriptionsOf(job.status());
  ASSERT_TRUE(job->training_input.has_value());
  const TrainingInput& input = *job->training_input;
  EXPECT_EQ(input.scale_tier, ScaleTier::kCustom);
  EXPECT_EQ(input.master_type, tc.master_type);
  EXPECT_EQ(input.worker_type, tc.worker_type);
  EXPECT_EQ(input.worker_count, tc.worker_count);
  EXPECT_EQ(input.parameter_server_count, tc.parameter_server_count);
  if (std::string(tc.worker_accelerator).empty()) {
    EXPECT_FALSE(input.worker_config && input.worker_config->accelerator_config);
  } else {
    ASSERT_TRUE(input.worker_config && input.worker_config->accelerator_config);
    EXPECT_EQ(input.worker_config->accelerator_config->type, tc.worker_accelerator);
    EXPECT_EQ(input.worker_config->accelerator_config->count, tc.worker_accelerator_count);
  }
  EXPECT_EQ(input.worker_config ? input.worker_config->tpu_tf_version : "", tc.tpu_tf_version);
}

INSTANTIATE_TEST_SUITE_P(
    Seeds, SeedConfigTest,
    ::testing::Values(
        SeedCase{"GpuComputeEngine", "gpu_compute_engine.yaml", "n1-highcpu-16", "n1-highcpu-16", 9,
                 3, "NVIDIA_TESLA_T4", 4, ""},
        SeedCase{"GpuLegacy", "gpu_legacy.yaml", "complex_model_m_gpu", "complex_model_m_gpu", 9, 3,
                 "", 0, ""},
        SeedCase{"TpuLegacyMaster", "tpu_legacy_master.yaml", "complex_model_m", "cloud_tpu", 1, 0,
                 "", 0, ""},
        SeedCase{"TpuV2", "tpu_v2.yaml", "n1-highcpu-16", "cloud_tpu", 1, 0, "TPU_V2", 8, ""},
        SeedCase{"TpuV3", "tpu_v3.yaml", "n1-highcpu-16", "cloud_tpu", 1, 0, "TPU_V3", 8, ""},
        SeedCase{"TpuV2Container", "tpu_v2_container.yaml", "n1-highcpu-16", "cloud_tpu", 1, 0,
                 "TPU_V2", 8, "2.2"},
        SeedCase{"TpuV3Container", "tpu_v3_container.yaml", "n1-highcpu-16", "cloud_tpu", 1, 0,
                 "TPU_V3", 8, "2.2"}),
    [](const auto& tc) { return std::string(tc.param.name); });

TEST(ParseConfigText, ReadsAHyperparameterTuningConfig) {
  const Result<Job> job = ParseConfigText(ReadTestdata("hptuning.yaml"), "hptuning.yaml");
  ASSERT_TRUE(job.ok()) << DescriptionsOf(job.status());
  EXPECT_EQ(job->job_id, "hp_job_1");
  EXPECT_EQ(job->labels, (Labels{{"owner", "ml-platform"}, {"team", "vision"}}));
  const TrainingInput& input = *job->training_input;
  EXPECT_EQ(input.scale_tier, ScaleTier::kBasicGpu);
  EXPECT_EQ(input.runtime_version, "2.11");
  EXPECT_EQ(input.python_version, "3.7");
  EXPECT_EQ(input.args, (std::vector<std::string>{"--epochs", "10"}));
  EXPECT_EQ(input.enable_web_access, false);
  EXPECT_EQ(input.scheduling->max_running_time, std::chrono::seconds(7200));
  EXPECT_EQ(input.scheduling->priority, 10);
  const HyperparameterSpec& spec = *input.hyperparameters;
  EXPECT_EQ(spec.goal, GoalType::kMaximize);
  EXPECT_EQ(spec.max_trials, 40);
  EXPECT_EQ(spec.max_parallel_trials, 2);
  EXPECT_TRUE(spec.enable_trial_early_stopping);
  EXPECT_EQ(spec.algorithm, Algorithm::kRandomSearch);
  ASSERT_EQ(spec.params.size(), 4u);
  EXPECT_EQ(spec.params[0].min_value, 0.0001);
  EXPECT_EQ(spec.params[0].max_value, 1.0);
  EXPECT_EQ(spec.params[0].scale_type, ScaleType::kUnitLogScale);
  EXPECT_EQ(spec.params[1].min_value, 0.0);  // present: 0 is a valid bound
  EXPECT_EQ(spec.params[2].discrete_values, (std::vector<double>{16, 32.5, 64}));
  EXPECT_EQ(spec.params[3].categorical_values, (std::vector<std::string>{"adam", "sgd", "1.0"}));
}

struct TypingCase {
  const char* name;
  const char* yaml;
  const char* json;  // EncodeJob of the result
};

class ScalarTypingTest : public ::testing::TestWithParam<TypingCase> {};

TEST_P(ScalarTypingTest, FollowsTheFieldType) {
  const TypingCase& tc = GetParam();
  const Result<Job> job = ParseConfigText(tc.yaml, "config.yaml");
  ASSERT_TRUE(job.ok()) << DescriptionsOf(job.status());
  EXPECT_EQ(EncodeJob(*job), tc.json);
}

INSTANTIATE_TEST_SUITE_P(
    Yaml, ScalarTypingTest,
    ::testing::Values(
        TypingCase{"CountAsInt", "trainingInput: {workerCount: 4}",
                   R"({"trainingInput":{"workerCount":"4"}})"},
        TypingCase{"CountAsString", "trainingInput: {workerCount: \"4\"}",
                   R"({"trainingInput":{"workerCount":"4"}})"},
        TypingCase{"Int32AsString", "trainingInput: {hyperparameters: {maxTrials: '4'}}",
                   R"({"trainingInput":{"hyperparameters":{"maxTrials":4}}})"},
        TypingCase{"TpuTfVersionStaysText", "trainingInput: {workerConfig: {tpuTfVersion: 2.2}}",
                   R"({"trainingInput":{"workerConfig":{"tpuTfVersion":"2.2"}}})"},
        TypingCase{"RuntimeVersionStaysText", "trainingInput: {runtimeVersion: 2.11}",
                   R"({"trainingInput":{"runtimeVersion":"2.11"}})"},
        TypingCase{"TrailingZeroKept", "trainingInput: {runtimeVersion: 2.10}",
                   R"({"trainingInput":{"runtimeVersion":"2.10"}})"},
        TypingCase{"LeadingZeroKept", "jobId: 007", R"({"jobId":"007"})"},
        TypingCase{"BoolTrue", "trainingInput: {enableWebAccess: true}",
                   R"({"trainingInput":{"enableWebAccess":true}})"},
        TypingCase{"BoolCapitalised", "trainingInput: {useChiefInTfConfig: True}",
                   R"({"trainingInput":{"useChiefInTfConfig":true}})"},
        TypingCase{"BoolFalseKept", "trainingInput: {enableWebAccess: FALSE}",
                   R"({"trainingInput":{"enableWebAccess":false}})"},
        TypingCase{"Double", "trainingInput: {hyperparameters: {params: [{minValue: 0.001}]}}",
                   R"({"trainingInput":{"hyperparameters":{"params":[{"minValue":0.001}]}}})"},
        TypingCase{"DoubleQuoted", "trainingInput: {hyperparameters: {params: [{maxValue: '5'}]}}",
                   R"({"trainingInput":{"hyperparameters":{"params":[{"maxValue":5.0}]}}})"},
        TypingCase{"DoubleExponent",
                   "trainingInput: {hyperparameters: {params: [{minValue: 1e-3}]}}",
                   R"({"trainingInput":{"hyperparameters":{"params":[{"minValue":0.001}]}}})"},
        TypingCase{"DoublePlusSign", "trainingOutput: {consumedMLUnits: +1.5}",
                   R"({"trainingOutput":{"consumedMLUnits":1.5}})"},
        TypingCase{"LabelValueNumber", "labels: {tier: 1}", R"({"labels":{"tier":"1"}})"},
        TypingCase{"ArgsMixed", "trainingInput: {args: [--lr, 0.1, true]}",
                   R"({"trainingInput":{"args":["--lr","0.1","true"]}})"},
        TypingCase{"UnquotedTimestamp", "createTime: 2018-02-27T22:09:40Z",
                   R"({"createTime":"2018-02-27T22:09:40Z"})"},
        TypingCase{"Duration", "trainingInput: {scheduling: {maxWaitTime: 3600s}}",
                   R"({"trainingInput":{"scheduling":{"maxWaitTime":"3600s"}}})"},
        TypingCase{"EmptyValueIsUnset", "trainingInput:\n  masterConfig:\n  region: r\n",
                   R"({"trainingInput":{"region":"r"}})"},
        TypingCase{"TildeIsUnset", "jobId: ~", "{}"},
        TypingCase{"QuotedNullIsText", "jobId: 'null'", R"({"jobId":"null"})"},
        TypingCase{"EmptyMappingIsPresent", "trainingInput: {masterConfig: {}}",
                   R"({"trainingInput":{"masterConfig":{}}})"},
        TypingCase{"JsonIsYaml", R"({"jobId": "j", "trainingInput": {"workerCount": 2}})",
                   R"({"jobId":"j","trainingInput":{"workerCount":"2"}})"},
        TypingCase{
            "Anchors",
            "trainingInput:\n  masterConfig: &gpu {acceleratorConfig: "
            "{count: 1, type: T}}\n  workerConfig: *gpu\n",
            R"({"trainingInput":{"masterConfig":{"acceleratorConfig":{"count":"1",)"
            R"("type":"T"}},"workerConfig":{"acceleratorConfig":{"count":"1","type":"T"}}}})"}),
    [](const auto& tc) { return std::string(tc.param.name); });

struct ErrorCase {
  const char* name;
  std::string yaml;
  std::vector<std::string> fields;
  const char* words;  // the first description starts with this
};

class ConfigErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ConfigErrorTest, NamesSourceAndField) {
  const ErrorCase& tc = GetParam();
  const Result<Job> job = ParseConfigText(tc.yaml, "config.yaml");
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(FieldsOf(job.status()), tc.fields) << DescriptionsOf(job.status());
  EXPECT_THAT(job.status().violations()[0].description, StartsWith(tc.words));
}

INSTANTIATE_TEST_SUITE_P(
    Yaml, ConfigErrorTest,
    ::testing::Values(
        ErrorCase{"SyntaxError",
                  "trainingInput:\n  args: [a, b\n",
                  {"job"},
                  "config.yaml:3:1: invalid YAML: "},
        ErrorCase{
            "BadIndentation", "trainingInput:\n  region: a\n bad: b\n", {"job"}, "config.yaml:3:"},
        ErrorCase{"Empty", "", {"job"}, "config.yaml: the file is empty"},
        // yaml-cpp 0.7's LoadAll would loop forever on these (jbeder/yaml-cpp#1040).
        ErrorCase{"LeadingComma",
                  ",obId: x\n",
                  {"job"},
                  "config.yaml:1:1: invalid YAML: unexpected character"},
        ErrorCase{"CommaAfterDocumentEnd",
                  "jobId: a\n...\n,\n",
                  {"job"},
                  "config.yaml:3:1: invalid YAML: unexpected character"},
        ErrorCase{"OnlyComments", "# nothing here\n", {"job"}, "config.yaml: the file is empty"},
        ErrorCase{"ListRoot",
                  "- trainingInput: {}\n",
                  {"job"},
                  "config.yaml: expected a Job as a YAML mapping"},
        ErrorCase{"ScalarRoot", "hello", {"job"}, "config.yaml: expected a Job"},
        ErrorCase{"TwoDocuments",
                  "jobId: a\n---\njobId: b\n",
                  {"job"},
                  "config.yaml: the file holds 2 YAML documents"},
        ErrorCase{"BadCount",
                  "trainingInput:\n  workerCount: many\n",
                  {"trainingInput.workerCount"},
                  "config.yaml:2:3: Invalid value at 'trainingInput.workerCount' (TYPE_INT64), "
                  "\"many\""},
        ErrorCase{"FloatCount",
                  "trainingInput: {masterConfig: {acceleratorConfig: {count: 1.5}}}",
                  {"trainingInput.masterConfig.acceleratorConfig.count"},
                  "config.yaml:1:"},
        ErrorCase{"YesIsNotABool",
                  "trainingInput:\n  enableWebAccess: yes\n",
                  {"trainingInput.enableWebAccess"},
                  "config.yaml:2:3: Invalid value"},
        ErrorCase{"InfinityIsNotADouble",
                  "trainingOutput: {consumedMLUnits: .inf}",
                  {"trainingOutput.consumedMLUnits"},
                  "config.yaml:1:"},
        ErrorCase{"HugeDouble",
                  "trainingOutput: {consumedMLUnits: 1e400}",
                  {"trainingOutput.consumedMLUnits"},
                  "config.yaml:1:"},
        ErrorCase{"EnumCase",
                  "trainingInput: {scaleTier: custom}",
                  {"trainingInput.scaleTier"},
                  "config.yaml:1:"},
        ErrorCase{"UnknownKey",
                  "trainingInput:\n  region: r\n  parameter_server_type: x\n",
                  {"trainingInput"},
                  "config.yaml:3:3: Unknown name \"parameter_server_type\" at 'trainingInput': "
                  "Cannot find field."},
        ErrorCase{"UnknownTopLevel",
                  "jobId: a\ntraining_input: {}\n",
                  {"job"},
                  "config.yaml:2:1: Unknown name \"training_input\" at 'job'"},
        ErrorCase{"DuplicateKey",
                  "jobId: a\njobId: b\n",
                  {"job"},
                  "config.yaml: duplicate key \"jobId\" (line 2, column 1)"},
        ErrorCase{"ListKey",
                  "labels: {[a]: b}\n",
                  {"labels"},
                  "config.yaml:1:1: a mapping key is not a string"},
        ErrorCase{"MessageAsList",
                  "trainingInput: [a]\n",
                  {"trainingInput"},
                  "config.yaml:1:1: Invalid value at 'trainingInput'"},
        ErrorCase{"NullListItem",
                  "trainingInput: {args: [a, null]}\n",
                  {"trainingInput.args[1]"},
                  "config.yaml:1:"},
        ErrorCase{"PredictionInput",
                  "predictionInput: {region: r}\n",
                  {"predictionInput"},
                  "config.yaml:1:1: 'predictionInput' is not supported"}),
    [](const auto& tc) { return std::string(tc.param.name); });

TEST(ParseConfigText, ReportsEveryProblemWithItsLine) {
  const Result<Job> job = ParseConfigText(
      "jobId: 12\n"
      "trainingInput:\n"
      "  scaleTier: HUGE\n"
      "  workerCount: -x\n"
      "  masterConfig:\n"
      "    acceleratorConfig:\n"
      "      cnt: 4\n",
      "cfg/config.yaml");
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(FieldsOf(job.status()),
              ElementsAre("trainingInput.scaleTier", "trainingInput.masterConfig.acceleratorConfig",
                          "trainingInput.workerCount"));
  const auto violations = job.status().violations();
  EXPECT_THAT(violations[0].description, StartsWith("cfg/config.yaml:3:3: "));
  EXPECT_THAT(violations[1].description, StartsWith("cfg/config.yaml:7:7: Unknown name \"cnt\""));
  EXPECT_THAT(violations[2].description, StartsWith("cfg/config.yaml:4:3: "));
}

TEST(ParseConfigText, StopsAnAliasBomb) {
  // 1000 trials naming one list of 1000 metrics: a million values from a few kilobytes.
  std::string text = "trainingOutput:\n  trials:\n    - &t {allMetrics: [&m {trainingStep: 1}";
  for (int i = 1; i < 1000; ++i) {
    text += ", *m";
  }
  text += "]}\n";
  for (int i = 1; i < 1000; ++i) {
    text += "    - *t\n";
  }
  const Result<Job> job = ParseConfigText(text, "bomb.yaml");
  ASSERT_FALSE(job.ok());
  ASSERT_EQ(job.status().violations().size(), 1u);
  EXPECT_THAT(job.status().violations()[0].field, StartsWith("trainingOutput.trials["));
  EXPECT_THAT(job.status().violations()[0].description,
              HasSubstr("the document holds more than 100000 values"));
}

TEST(ParseConfigText, RejectsInvalidUtf8Strings) {
  const Result<Job> job = ParseConfigText("jobId: \"a\\xff\"\nerrorMessage: \xc3\x28\n", "c.yaml");
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(FieldsOf(job.status()), ElementsAre("errorMessage"));
  EXPECT_THAT(DescriptionsOf(job.status()), HasSubstr("not valid UTF-8"));
}

}  // namespace
}  // namespace trainyard::model
