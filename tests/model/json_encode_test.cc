#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/full_job.h"
#include "model/json_codec.h"
#include "model/violation_matchers.h"

namespace trainyard::model {
namespace {

using ::testing::HasSubstr;

// Captured from gcloud 528 `jobs submit training` (docs/reference/ai-platform-training.md §1.4).
constexpr const char* kGcloudCreateBody = R"({"jobId":"job_1","labels":{"a":"b"},
 "trainingInput":{"args":["--foo=bar","--x","1"],"enableWebAccess":false,"jobDir":"gs://bkt1/out",
   "masterConfig":{"acceleratorConfig":{"count":"1","type":"NVIDIA_TESLA_T4"}},"masterType":"n1-standard-4",
   "packageUris":["gs://bkt1/job_1/<sha256>/trainer-0.0.0.tar.gz"],
   "parameterServerCount":"1","parameterServerType":"n1-standard-4","pythonModule":"trainer.task",
   "pythonVersion":"3.7","region":"us-central1","runtimeVersion":"2.11","scaleTier":"CUSTOM",
   "workerCount":"2","workerType":"n1-standard-4"}})";

TEST(JsonRoundTrip, FullyPopulatedJobSurvives) {
  const Job job = FullJob();
  const std::string text = EncodeJob(job);
  const Result<Job> decoded = DecodeJob(text);
  ASSERT_TRUE(decoded.ok()) << DescriptionsOf(decoded.status()) << text;
  EXPECT_EQ(*decoded, job) << text;
  EXPECT_EQ(EncodeJob(*decoded), text);
}

TEST(JsonRoundTrip, PrettyFormDecodesToTheSameJob) {
  const Job job = FullJob();
  const std::string pretty = EncodeJobPretty(job);
  EXPECT_THAT(pretty, HasSubstr("\n  \"jobId\": \"job_1\",\n"));
  const Result<Job> decoded = DecodeJob(pretty);
  ASSERT_TRUE(decoded.ok()) << DescriptionsOf(decoded.status());
  EXPECT_EQ(*decoded, job);
}

TEST(JsonRoundTrip, TrainingInputAlone) {
  const TrainingInput input = *FullJob().training_input;
  const Result<TrainingInput> decoded = DecodeTrainingInput(EncodeTrainingInput(input));
  ASSERT_TRUE(decoded.ok()) << DescriptionsOf(decoded.status());
  EXPECT_EQ(*decoded, input);
}

TEST(JsonRoundTrip, GcloudCreateBodyDecodes) {
  const Result<Job> job = DecodeJob(kGcloudCreateBody);
  ASSERT_TRUE(job.ok()) << DescriptionsOf(job.status());
  EXPECT_EQ(job->job_id, "job_1");
  EXPECT_EQ(job->labels, (Labels{{"a", "b"}}));
  const TrainingInput& input = *job->training_input;
  EXPECT_EQ(input.scale_tier, ScaleTier::kCustom);
  EXPECT_EQ(input.master_type, "n1-standard-4");
  EXPECT_EQ(input.master_config->accelerator_config,
            (AcceleratorConfig{.count = 1, .type = "NVIDIA_TESLA_T4"}));
  EXPECT_EQ(input.worker_count, 2);
  EXPECT_EQ(input.worker_type, "n1-standard-4");
  EXPECT_EQ(input.parameter_server_count, 1);
  EXPECT_EQ(input.parameter_server_type, "n1-standard-4");
  EXPECT_EQ(input.args, (std::vector<std::string>{"--foo=bar", "--x", "1"}));
  EXPECT_EQ(input.package_uris.size(), 1u);
  EXPECT_EQ(input.python_module, "trainer.task");
  EXPECT_EQ(input.python_version, "3.7");
  EXPECT_EQ(input.runtime_version, "2.11");
  EXPECT_EQ(input.region, "us-central1");
  EXPECT_EQ(input.job_dir, "gs://bkt1/out");
  EXPECT_EQ(input.enable_web_access, false);

  const std::string text = EncodeJob(*job);
  const Result<Job> again = DecodeJob(text);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *job);
  EXPECT_EQ(EncodeJob(*again), text);
}

TEST(EncodeJob, WritesProto3WireFormsInSchemaOrder) {
  Job job;
  job.job_id = "j";
  job.state = JobState::kQueued;
  job.create_time = WallTime(std::chrono::seconds(1519769380));
  job.job_position = 3;
  job.labels = {{"b", "2"}, {"a", "1"}};
  TrainingInput& input = job.training_input.emplace();
  input.scale_tier = ScaleTier::kCustom;
  input.worker_count = 2;
  input.worker_config.emplace().accelerator_config = AcceleratorConfig{.count = 4, .type = "T"};
  input.scheduling.emplace().priority = 10;
  input.scheduling->max_wait_time = std::chrono::seconds(1800);
  ParameterSpec& param = input.hyperparameters.emplace().params.emplace_back();
  param.min_value = 0;
  param.max_value = 2.5;
  input.hyperparameters->max_trials = 4;
  EXPECT_EQ(EncodeJob(job),
            R"({"jobId":"j","createTime":"2018-02-27T22:09:40Z","state":"QUEUED",)"
            R"("labels":{"a":"1","b":"2"},"trainingInput":{"scaleTier":"CUSTOM",)"
            R"("workerConfig":{"acceleratorConfig":{"count":"4","type":"T"}},"workerCount":"2",)"
            R"("hyperparameters":{"params":[{"minValue":0.0,"maxValue":2.5}],"maxTrials":4},)"
            R"("scheduling":{"maxWaitTime":"1800s","priority":10}},"jobPosition":"3"})");
}

TEST(EncodeJob, OmitsZeroValuesButKeepsPresentOptionals) {
  Job job;
  EXPECT_EQ(EncodeJob(job), "{}");
  TrainingInput& input = job.training_input.emplace();
  input.scale_tier = ScaleTier::kBasic;  // the zero value
  input.master_config.emplace();         // present but empty
  input.enable_web_access = false;       // gcloud always sends it
  job.training_output.emplace();
  EXPECT_EQ(EncodeJob(job),
            R"({"trainingInput":{"masterConfig":{},"enableWebAccess":false},"trainingOutput":{}})");
}

TEST(EncodeJob, ReplacesInvalidUtf8InsteadOfThrowing) {
  Job job;
  job.error_message = "exit \xff\xfe status";
  const std::string text = EncodeJob(job);
  EXPECT_EQ(text, "{\"errorMessage\":\"exit \xEF\xBF\xBD\xEF\xBF\xBD status\"}");
  EXPECT_TRUE(DecodeJob(text).ok());
}

TEST(EncodeJob, DoublesUseTheShortestRoundTripText) {
  Job job;
  job.training_output.emplace().consumed_ml_units = 0.1;
  EXPECT_EQ(EncodeJob(job), R"({"trainingOutput":{"consumedMLUnits":0.1}})");
}

TEST(EncodeJob, DecodedTextIsStable) {
  // Non-canonical input (numbers for int64, offsets in timestamps, nulls) settles after one pass.
  const Result<Job> job = DecodeJob(
      R"({"createTime":"2018-02-27T23:09:40.500+01:00","jobPosition":5,"errorMessage":null,)"
      R"("trainingInput":{"workerCount":"0","scheduling":{"maxRunningTime":"7200.000s"}}})");
  ASSERT_TRUE(job.ok()) << DescriptionsOf(job.status());
  const std::string once = EncodeJob(*job);
  EXPECT_EQ(once, R"({"createTime":"2018-02-27T22:09:40.500Z","trainingInput":{"scheduling":)"
                  R"({"maxRunningTime":"7200s"}},"jobPosition":"5"})");
  const Result<Job> again = DecodeJob(once);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(EncodeJob(*again), once);
}

}  // namespace
}  // namespace trainyard::model
