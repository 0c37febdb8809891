// How jobs are shown: the list table, the submit summary, describe's JSON, and local times.
#include "cli/output/job_output.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/time_format.h"

namespace trainyard::cli {
namespace {

WallTime At(const char* rfc3339) {
  return *ParseTimestamp(rfc3339);
}

// `LocalDate` in UTC, whatever the machine's zone.
std::string UtcDate(WallTime time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  return std::string(text, std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm));
}

model::Job MakeJob(std::string id, model::JobState state, const char* created) {
  model::Job job;
  job.job_id = std::move(id);
  job.state = state;
  if (created != nullptr) {
    job.create_time = At(created);
  }
  return job;
}

struct TableCase {
  std::string name;
  std::vector<model::Job> jobs;
  std::string table;
};

class FormatJobsTableTest : public ::testing::TestWithParam<TableCase> {};

TEST_P(FormatJobsTableTest, PrintsGcloudsColumns) {
  EXPECT_EQ(FormatJobsTable(GetParam().jobs, UtcDate), GetParam().table);
}

INSTANTIATE_TEST_SUITE_P(
    Tables, FormatJobsTableTest,
    ::testing::Values(
        TableCase{"NoJobs", {}, "JOB_ID  STATUS  CREATED\n"},
        TableCase{"ColumnsPadToTheWidestCell",
                  {MakeJob("job_2", model::JobState::kQueued, "2026-11-21T11:04:40.064312Z"),
                   MakeJob("job_1", model::JobState::kCancelled, "2026-11-21T10:59:05Z")},
                  "JOB_ID  STATUS     CREATED\n"
                  "job_2   QUEUED     2026-11-21T11:04:40\n"
                  "job_1   CANCELLED  2026-11-21T10:59:05\n"},
        TableCase{"NoCreateTimeLeavesTheCellEmpty",
                  {MakeJob("a_long_job_id", model::JobState::kRunning, nullptr)},
                  "JOB_ID         STATUS   CREATED\n"
                  "a_long_job_id  RUNNING\n"}),
    [](const auto& tc) { return tc.param.name; });

TEST(FormatSubmittedJob, PrintsIdStateAndTheTimesThatAreSetWithSortedKeys) {
  model::Job job = MakeJob("job_1", model::JobState::kQueued, "2026-11-21T10:59:05Z");
  EXPECT_EQ(FormatSubmittedJob(job, UtcDate), "jobId: job_1\nstate: QUEUED\n");
  job.state = model::JobState::kSucceeded;
  job.start_time = At("2026-11-21T11:00:00Z");
  job.end_time = At("2026-11-21T11:30:00.5Z");
  // As gcloud 528 printed it after `submit training --stream-logs`.
  EXPECT_EQ(FormatSubmittedJob(job, UtcDate),
            "endTime: '2026-11-21T11:30:00'\njobId: job_1\nstartTime: '2026-11-21T11:00:00'\n"
            "state: SUCCEEDED\n");
}

TEST(FormatJob, JsonHasSortedKeysAndTwoSpaceIndents) {
  model::Job job = MakeJob("job_1", model::JobState::kFailed, "2026-11-21T10:59:05Z");
  job.error_message = "The replica master 0 exited with a non-zero status of 1.";
  job.labels = {{"team", "ml"}};
  const std::string json = FormatJob(job, JobFormat::kJson);
  EXPECT_EQ(json,
            "{\n"
            "  \"createTime\": \"2026-11-21T10:59:05Z\",\n"
            "  \"errorMessage\": \"The replica master 0 exited with a non-zero status of 1.\",\n"
            "  \"jobId\": \"job_1\",\n"
            "  \"labels\": {\n"
            "    \"team\": \"ml\"\n"
            "  },\n"
            "  \"state\": \"FAILED\"\n"
            "}\n");
  EXPECT_EQ(FormatJob(job, JobFormat::kYaml),
            "createTime: '2026-11-21T10:59:05Z'\n"
            "errorMessage: The replica master 0 exited with a non-zero status of 1.\n"
            "jobId: job_1\n"
            "labels:\n"
            "  team: ml\n"
            "state: FAILED\n");
}

TEST(ParseJobFormat, AcceptsYamlAndJson) {
  EXPECT_EQ(*ParseJobFormat("yaml"), JobFormat::kYaml);
  EXPECT_EQ(*ParseJobFormat("json"), JobFormat::kJson);
  EXPECT_EQ(ParseJobFormat("table").status().message(),
            "argument --format: Invalid choice: 'table'. Valid choices are [json, yaml].");
}

TEST(LocalDate, UsesTheProcessTimeZone) {
  // A POSIX zone string needs no tz database: two hours east of UTC, no daylight saving.
  ASSERT_EQ(setenv("TZ", "TYT-2", 1), 0);
  tzset();
  EXPECT_EQ(LocalDate(At("2024-01-01T23:30:00Z")), "2024-01-02T01:30:00");
  unsetenv("TZ");
  tzset();
}

}  // namespace
}  // namespace trainyard::cli
