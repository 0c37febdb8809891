// The job store's form of a job: the ml v1 JSON plus the extras (model/job_extras.h), which the
// ml v1 codec never shows.
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "model/job.h"
#include "model/json_codec.h"

namespace trainyard::model {
namespace {

Job JobWithExtras() {
  Job job;
  job.job_id = "nvidiatfjob";
  job.state = JobState::kQueued;
  JobExtras extras;
  extras.master.env = {{"A", "1"}, {"B", "two"}};
  extras.master.working_dir = "/work";
  extras.master.args = std::vector<std::string>{"--epochs=2", ""};
  extras.worker.args = std::vector<std::string>{};
  extras.worker.restart = RestartRule::kExitCode;
  extras.worker.node_selector = {{"nvidia", "t4"}};
  extras.parameter_server.restart = RestartRule::kOnFailure;
  extras.evaluator.restart = RestartRule::kNever;
  extras.kubeflow = KubeflowNaming{
      .job_name = "nvidiatfjob", .namespace_name = "default", .primary_type = "worker"};
  extras.success = SuccessRule::kAllWorkers;
  extras.backoff_limit = 0;
  extras.restart_all_on_failure = true;
  extras.suspended = true;
  extras.resumed = true;
  extras.priority_class = "high";
  extras.best_measurement = true;
  extras.parameter_conditions = {
      {.parameter = "momentum",
       .parent = "optimizer",
       .parent_values = {},
       .parent_categories = {"sgd"}},
      {.parameter = "width", .parent = "layers", .parent_values = {2, 3}, .parent_categories = {}}};
  extras.extra_metrics = {{.id = "loss", .goal = GoalType::kMinimize},
                          {.id = "latency", .goal = GoalType::kMinimize}};
  extras.trial_measurements = {{.trial_id = "1", .values = {0.25, 12.5}},
                               {.trial_id = "3", .values = {-1, 0}}};
  extras.kube = KubeObject{.kind = "TFJob",
                           .api_version = "kubeflow.org/v1beta2",
                           .name = "nvidiatfjob",
                           .namespace_name = "default",
                           .uid = "5c0f",
                           .document = R"({"metadata":{"name":"nvidiatfjob"}})",
                           .generation = 3,
                           .deletion_time = ParseTimestamp("2026-11-24T10:00:00Z")};
  extras.vertex = VertexResource{.kind = "CustomJob",
                                 .location = "us-central1",
                                 .display_name = "nightly",
                                 .document = R"({"workerPoolSpecs":[]})",
                                 .base_output_directory = "gs://b/out"};
  job.extras = std::move(extras);
  return job;
}

TEST(StoredJobTest, ExtrasSurviveTheStoredForm) {
  const Job job = JobWithExtras();
  Result<Job> back = DecodeStoredJob(EncodeStoredJob(job));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, job);
}

TEST(StoredJobTest, DefaultExtrasSurviveToo) {
  Job job;
  job.job_id = "j";
  job.extras = JobExtras{};
  Result<Job> back = DecodeStoredJob(EncodeStoredJob(job));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, job);
}

TEST(StoredJobTest, TheMlV1FormNeverShowsExtras) {
  const Job job = JobWithExtras();
  const std::string wire = EncodeJob(job);
  EXPECT_EQ(wire.find("trainyardExtras"), std::string::npos) << wire;
  EXPECT_EQ(wire.find("nvidia"), wire.find("nvidiatfjob")) << wire;
  // …and the ml v1 decoder refuses the member, so no client can set extras through ml v1.
  EXPECT_FALSE(DecodeJob(EncodeStoredJob(job)).ok());
}

TEST(StoredJobTest, AJobWithoutExtrasIsStoredAsItsMlV1Form) {
  Job job;
  job.job_id = "plain";
  EXPECT_EQ(EncodeStoredJob(job), EncodeJob(job));
  Result<Job> back = DecodeStoredJob(EncodeJob(job));
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->extras.has_value());
}

// The job store's two columns: the ml v1 JSON as is, the extras beside it.
TEST(StoredJobTest, TheTwoTextFormHoldsTheSameJob) {
  const Job job = JobWithExtras();
  Result<Job> back = DecodeStoredJob(EncodeJob(job), EncodeJobExtras(*job.extras));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, job);

  Job plain = job;
  plain.extras.reset();
  back = DecodeStoredJob(EncodeJob(plain), "");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, plain);

  EXPECT_FALSE(DecodeStoredJob(EncodeJob(job), R"({"worker":{"restart":"Sometimes"}})").ok());
  EXPECT_FALSE(DecodeStoredJob(EncodeJob(job), "{").ok());
  EXPECT_FALSE(DecodeStoredJob(EncodeStoredJob(job), EncodeJobExtras(*job.extras)).ok());
}

TEST(StoredJobTest, MalformedExtrasAreAnError) {
  for (const char* text : {R"({"jobId":"j","trainyardExtras":{"worker":{"restart":"Sometimes"}}})",
                           R"({"jobId":"j","trainyardExtras":{"kube":{"kind":"TFJob"}}})",
                           R"({"jobId":"j","trainyardExtras":{"worker":{"env":[{"name":1}]}}})",
                           R"({"jobId":"j","trainyardExtras":{"vertex":{"kind":"CustomJob"}}})",
                           R"({"jobId":"j","trainyardExtras":{"master":{"args":"--a"}}})"}) {
    EXPECT_FALSE(DecodeStoredJob(text).ok()) << text;
  }
}

TEST(IsSuspendedTest, OnlyAJobWhoseExtrasSaySo) {
  struct Case {
    const char* name;
    std::optional<bool> suspended;  // nullopt: no extras at all
    bool expected;
  };
  for (const Case& c : std::vector<Case>{{"no extras", std::nullopt, false},
                                         {"extras, not suspended", false, false},
                                         {"suspended", true, true}}) {
    SCOPED_TRACE(c.name);
    Job job;
    job.state = JobState::kQueued;
    if (c.suspended) {
      job.extras.emplace().suspended = *c.suspended;
    }
    EXPECT_EQ(IsSuspended(job), c.expected);
  }
}

}  // namespace
}  // namespace trainyard::model
