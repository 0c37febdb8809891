// The filter text of `stream-logs`, byte for byte gcloud 528's: every expected string below was
// printed by gcloud's own log_utils.LogFilters and stream.LogPosition for the same inputs.
#include "cli/follow/log_query.h"

#include <chrono>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "base/time_format.h"

namespace trainyard::cli {
namespace {

struct FiltersCase {
  std::string name;
  std::string job_id;
  std::string task_name;
  std::string joined;  // gcloud's ' AND '.join(LogFilters(job_id, task_name or None))
};

class JobLogFiltersTest : public ::testing::TestWithParam<FiltersCase> {};

TEST_P(JobLogFiltersTest, AreGcloudsClauses) {
  const FiltersCase& c = GetParam();
  EXPECT_EQ(fmt::format("{}", fmt::join(JobLogFilters(c.job_id, c.task_name), " AND ")), c.joined);
}

INSTANTIATE_TEST_SUITE_P(
    Gcloud528, JobLogFiltersTest,
    ::testing::Values(
        FiltersCase{"JobOnly", "job_1", "",
                    R"((resource.type="ml_job" OR resource.type="cloudml_job") AND )"
                    R"(resource.labels.job_id="job_1")"},
        FiltersCase{"WithTask", "job_1", "worker-replica-1",
                    R"((resource.type="ml_job" OR resource.type="cloudml_job") AND )"
                    R"(resource.labels.job_id="job_1" AND )"
                    R"((resource.labels.task_name="worker-replica-1" OR )"
                    R"(labels.task_name="worker-replica-1"))"},
        FiltersCase{"ServiceTask", "census_7", "service",
                    R"((resource.type="ml_job" OR resource.type="cloudml_job") AND )"
                    R"(resource.labels.job_id="census_7" AND )"
                    R"((resource.labels.task_name="service" OR labels.task_name="service"))"},
        // gcloud quotes nothing: the text goes in as given.
        FiltersCase{"NothingEscaped", "a\"b", "x y",
                    R"((resource.type="ml_job" OR resource.type="cloudml_job") AND )"
                    R"(resource.labels.job_id="a"b" AND )"
                    R"((resource.labels.task_name="x y" OR labels.task_name="x y"))"}),
    [](const auto& tc) { return tc.param.name; });

// command_lib/ai/log_util.py `_LogFilters`: no cloudml_job alternative, and the task only as a
// resource label.
TEST(VertexJobLogFilters, AreGcloudsClauses) {
  EXPECT_EQ(fmt::format("{}", fmt::join(VertexJobLogFilters("123", ""), " AND ")),
            R"(resource.type="ml_job" AND resource.labels.job_id="123")");
  EXPECT_EQ(fmt::format("{}", fmt::join(VertexJobLogFilters("123", "workerpool1-0"), " AND ")),
            R"(resource.type="ml_job" AND resource.labels.job_id="123" AND )"
            R"(resource.labels.task_name="workerpool1-0")");
}

TEST(LogPosition, StartsAtGcloudsUnixZero) {
  EXPECT_EQ(LogPosition().LowerBound(), R"(timestamp>="1970-01-01T01:00:00.000000000Z")");
}

// One entry read after another: whether it is new, and the lower bound after it.
struct Step {
  std::string timestamp;
  std::string insert_id;
  bool is_new;
  std::string lower_bound;
};

TEST(LogPosition, MovesAsGcloudsDoes) {
  const std::string kTs = "2026-11-21T09:35:01.760285Z";
  const std::string kAfterTwo = R"(((timestamp="2026-11-21T09:35:01.760285Z" AND )"
                                R"(insertId>"000000000002") OR )"
                                R"(timestamp>"2026-11-21T09:35:01.760285Z"))";
  const std::vector<Step> steps = {
      {kTs, "000000000001", true, R"(timestamp>="2026-11-21T09:35:01.760285Z")"},
      {kTs, "000000000002", true, kAfterTwo},
      {kTs, "000000000002", false, kAfterTwo},                            // the same entry again
      {"2026-11-21T09:35:01.000000Z", "000000000009", false, kAfterTwo},  // older
      {"2026-11-21T09:35:02.000001Z", "000000000000", true,
       R"(timestamp>="2026-11-21T09:35:02.000001Z")"},
      {"2026-11-21T09:35:02.000001Z", "000000000000", false,
       R"(timestamp>="2026-11-21T09:35:02.000001Z")"},
  };
  LogPosition position;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    EXPECT_EQ(position.Update(step.timestamp, step.insert_id), step.is_new) << "step " << i;
    EXPECT_EQ(position.LowerBound(), step.lower_bound) << "step " << i;
  }
}

TEST(LogPosition, ComparesTimestampsAsTextNotAsInstants) {
  LogPosition position;
  ASSERT_TRUE(position.Update("2026-11-21T09:35:01.5Z", "1"));
  // The same instant written with more digits sorts before it as text: gcloud drops it.
  EXPECT_FALSE(position.Update("2026-11-21T09:35:01.500000Z", "2"));
}

TEST(LogUpperBound, IsGcloudsMicrosecondUtcText) {
  const auto now = ParseTimestamp("2026-11-21T09:35:01.764662Z");
  ASSERT_TRUE(now.has_value());
  // gcloud: GetFilterUpperBound(datetime(2026, 11, 21, 9, 35, 1, 764662)), 5 s before.
  EXPECT_EQ(LogUpperBound(*now - std::chrono::seconds(5)),
            R"(timestamp<"2026-11-21T09:34:56.764662Z")");
  // Nanoseconds are truncated, never rounded up past the clock.
  EXPECT_EQ(LogUpperBound(*ParseTimestamp("2026-11-21T09:35:01.999999999Z")),
            R"(timestamp<"2026-11-21T09:35:01.999999Z")");
}

TEST(PollFilter, JoinsTheJobTheLowerAndTheUpperBound) {
  LogPosition position;
  const std::vector<std::string> filters = JobLogFilters("job_1", "");
  const auto upper = ParseTimestamp("2026-11-21T09:34:56.764662Z");
  ASSERT_TRUE(upper.has_value());
  // The request body captured from gcloud 528 (docs/reference/ai-platform-training.md §10.1).
  EXPECT_EQ(PollFilter(filters, position, upper),
            R"((resource.type="ml_job" OR resource.type="cloudml_job") AND )"
            R"(resource.labels.job_id="job_1" AND timestamp>="1970-01-01T01:00:00.000000000Z" )"
            R"(AND timestamp<"2026-11-21T09:34:56.764662Z")");
  EXPECT_EQ(PollFilter(filters, position, std::nullopt),
            R"((resource.type="ml_job" OR resource.type="cloudml_job") AND )"
            R"(resource.labels.job_id="job_1" AND timestamp>="1970-01-01T01:00:00.000000000Z")");
}

}  // namespace
}  // namespace trainyard::cli
