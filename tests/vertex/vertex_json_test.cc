// A Vertex job on Vertex AI's wire: its name, state and error.
#include "vertex/vertex_json.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/time_format.h"

namespace trainyard::vertex {
namespace {

model::Job VertexJob(model::JobState state) {
  model::Job job;
  job.job_id = "1234";
  job.state = state;
  job.create_time = ParseTimestamp("2026-11-26T10:00:00Z");
  job.start_time = ParseTimestamp("2026-11-26T10:00:05Z");
  job.extras = model::JobExtras{};
  job.extras->vertex = model::VertexResource{.kind = "CustomJob",
                                             .location = "europe-west4",
                                             .display_name = "nightly",
                                             .document = R"({"workerPoolSpecs":[]})",
                                             .base_output_directory = ""};
  return job;
}

TEST(VertexStateTest, EachEngineStateHasItsVertexName) {
  const struct {
    model::JobState engine;
    std::string_view vertex;
  } cases[] = {
      {model::JobState::kQueued, "JOB_STATE_QUEUED"},
      {model::JobState::kPreparing, "JOB_STATE_PENDING"},
      {model::JobState::kRunning, "JOB_STATE_RUNNING"},
      {model::JobState::kSucceeded, "JOB_STATE_SUCCEEDED"},
      {model::JobState::kFailed, "JOB_STATE_FAILED"},
      {model::JobState::kCancelling, "JOB_STATE_CANCELLING"},
      {model::JobState::kCancelled, "JOB_STATE_CANCELLED"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(VertexStateName(c.engine), c.vertex);
    EXPECT_EQ(EngineStateOf(c.vertex), c.engine);
  }
  EXPECT_EQ(EngineStateOf("job_state_running"), model::JobState::kRunning);
  EXPECT_EQ(EngineStateOf("RUNNING"), std::nullopt);
}

TEST(EncodeCustomJobTest, NameTimesAndSpec) {
  const nlohmann::ordered_json out = EncodeCustomJob("p", VertexJob(model::JobState::kRunning));
  EXPECT_EQ(out["name"], "projects/p/locations/europe-west4/customJobs/1234");
  EXPECT_EQ(out["displayName"], "nightly");
  EXPECT_EQ(out["state"], "JOB_STATE_RUNNING");
  EXPECT_EQ(out["createTime"], "2026-11-26T10:00:00Z");
  EXPECT_EQ(out["updateTime"], "2026-11-26T10:00:05Z");
  EXPECT_TRUE(out["jobSpec"]["workerPoolSpecs"].is_array());
  EXPECT_FALSE(out.contains("error"));
}

TEST(EncodeCustomJobTest, FailuresAndCancellationsCarryAGoogleRpcStatus) {
  model::Job failed = VertexJob(model::JobState::kFailed);
  failed.error_message = "The replica workerpool0-0 exited with a non-zero status of 1.";
  nlohmann::ordered_json out = EncodeCustomJob("p", failed);
  EXPECT_EQ(out["error"]["code"], 3);
  EXPECT_EQ(out["error"]["message"], failed.error_message);
  out = EncodeCustomJob("p", VertexJob(model::JobState::kCancelled));
  EXPECT_EQ(out["error"]["code"], 1);
}

TEST(IsResourceInTest, OnlyAVertexJobOfTheKindAndLocation) {
  model::Job ml_job = VertexJob(model::JobState::kQueued);
  ml_job.extras->vertex.reset();
  model::Job no_extras = VertexJob(model::JobState::kQueued);
  no_extras.extras.reset();
  const model::Job custom = VertexJob(model::JobState::kQueued);  // CustomJob, europe-west4
  const struct {
    std::string name;
    const model::Job& job;
    std::string_view kind;
    std::string_view location;
    bool expected;
  } cases[] = {
      {"SameKindAndLocation", custom, kCustomJobKind, "europe-west4", true},
      {"OtherLocation", custom, kCustomJobKind, "us-central1", false},
      {"OtherKind", custom, kTuningJobKind, "europe-west4", false},
      {"MlJobWithExtras", ml_job, kCustomJobKind, "europe-west4", false},
      {"MlJobWithoutExtras", no_extras, kCustomJobKind, "europe-west4", false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(IsResourceIn(c.job, c.kind, c.location), c.expected) << c.name;
  }
}

}  // namespace
}  // namespace trainyard::vertex
