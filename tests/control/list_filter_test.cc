#include "control/list_filter.h"

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::control {
namespace {

using model::JobState;

// 1'700'000'000 s is 2023-11-14T22:13:20Z.
WallTime At(std::int64_t seconds_after) {
  return WallTime(std::chrono::seconds(1'700'000'000 + seconds_after));
}

model::Job MakeJob(std::string id, JobState state, std::int64_t created, std::string region,
                   model::Labels labels) {
  model::Job job;
  job.job_id = std::move(id);
  job.state = state;
  job.create_time = At(created);
  job.labels = std::move(labels);
  job.training_input.emplace().region = std::move(region);
  return job;
}

// census_1 created 22:15:00Z, census_2 22:18:20Z, rnn_1 22:21:40Z, rnn_2 22:25:00Z.
std::vector<model::Job> Jobs() {
  std::vector<model::Job> jobs = {
      MakeJob("census_1", JobState::kFailed, 100, "us-central1",
              {{"env", "prod"}, {"team", "vision"}}),
      MakeJob("census_2", JobState::kSucceeded, 300, "europe-west4", {{"env", "dev"}}),
      MakeJob("rnn_1", JobState::kRunning, 500, "us-central1", {}),
      MakeJob("rnn_2", JobState::kQueued, 700, "us-east1", {{"team", "nlp"}}),
  };
  jobs[0].start_time = At(110);
  jobs[0].end_time = At(200);
  jobs[0].error_message = "The replica master 0 exited with a non-zero status of 1.";
  jobs[1].start_time = At(310);
  jobs[1].end_time = At(400);
  jobs[2].start_time = At(510);
  return jobs;
}

struct MatchCase {
  std::string name;
  std::string filter;
  std::vector<std::string> expected;  // ids in Jobs() order
};

class FilterMatchTest : public ::testing::TestWithParam<MatchCase> {};

TEST_P(FilterMatchTest, SelectsTheExpectedJobs) {
  Result<ListFilter> filter = ListFilter::Parse(GetParam().filter);
  ASSERT_TRUE(filter.ok()) << filter.status().ToString();
  std::vector<std::string> matched;
  for (const model::Job& job : Jobs()) {
    if (filter->Matches(job)) {
      matched.push_back(job.job_id);
    }
  }
  EXPECT_EQ(matched, GetParam().expected);
}

const std::vector<std::string> kAll = {"census_1", "census_2", "rnn_1", "rnn_2"};

INSTANTIATE_TEST_SUITE_P(
    Filters, FilterMatchTest,
    ::testing::Values(
        MatchCase{"Empty", "", kAll}, MatchCase{"Blank", "  \t ", kAll},
        MatchCase{"JobIdPrefix", "jobId:census*", {"census_1", "census_2"}},
        MatchCase{"JobIdHasIsEquality", "jobId:census", {}},
        MatchCase{"JobIdEquals", "jobId=census_1", {"census_1"}},
        MatchCase{"JobIdOrdering", "jobId<census_2", {"census_1"}},
        MatchCase{"DocumentedExample", "jobId:census* AND state:FAILED", {"census_1"}},
        MatchCase{"StateEquals", "state=RUNNING", {"rnn_1"}},
        MatchCase{"StateAnyCase", "state:running", {"rnn_1"}},
        MatchCase{"StateNotEquals", "state!=QUEUED", {"census_1", "census_2", "rnn_1"}},
        MatchCase{"LabelValue", "labels.env=prod", {"census_1"}},
        MatchCase{
            "LabelNotEqualsIncludesAbsent", "labels.env!=prod", {"census_2", "rnn_1", "rnn_2"}},
        MatchCase{"LabelPresent", "labels.env:*", {"census_1", "census_2"}},
        MatchCase{"LabelsHasKey", "labels:team", {"census_1", "rnn_2"}},
        MatchCase{"NotKeyword", "NOT labels:team", {"census_2", "rnn_1"}},
        MatchCase{"MinusPrefix", "-labels:team", {"census_2", "rnn_1"}},
        MatchCase{"QuotedValue", "labels.team=\"vision\"", {"census_1"}},
        MatchCase{"SingleQuotesAndSpaces", "labels.team = 'vision'", {"census_1"}},
        MatchCase{"QuotedLabelKey", "labels.\"team\"=vision", {"census_1"}},
        MatchCase{"CreatedAfter", "createTime>2023-11-14T22:18:20Z", {"rnn_1", "rnn_2"}},
        MatchCase{
            "CreatedAtOrAfter", "createTime>=2023-11-14T22:18:20Z", {"census_2", "rnn_1", "rnn_2"}},
        MatchCase{"TimesAreInstants", "createTime<\"2023-11-14T23:18:20+01:00\"", {"census_1"}},
        MatchCase{"FractionalTime", "createTime=2023-11-14T22:15:00.000Z", {"census_1"}},
        MatchCase{"EndTimeSet", "endTime:*", {"census_1", "census_2"}},
        MatchCase{"EndTimeUnset", "NOT endTime:*", {"rnn_1", "rnn_2"}},
        MatchCase{
            "UnsetTimeNeverCompares", "endTime<2030-01-01T00:00:00Z", {"census_1", "census_2"}},
        MatchCase{"StartedBefore", "startTime<=2023-11-14T22:18:30Z", {"census_1", "census_2"}},
        MatchCase{"Region", "trainingInput.region=us-central1", {"census_1", "rnn_1"}},
        MatchCase{"ScaleTier", "trainingInput.scaleTier=BASIC", kAll},
        MatchCase{"ErrorMessage", "errorMessage:*", {"census_1"}},
        MatchCase{"Or", "state=FAILED OR state=SUCCEEDED", {"census_1", "census_2"}},
        // AIP-160: OR binds tighter than AND.
        MatchCase{
            "OrBindsTighter", "jobId:rnn* AND state=QUEUED OR state=RUNNING", {"rnn_1", "rnn_2"}},
        MatchCase{
            "Parentheses", "(jobId:rnn* AND state=QUEUED) OR state=FAILED", {"census_1", "rnn_2"}},
        MatchCase{"ImplicitAnd", "jobId:rnn* labels:team", {"rnn_2"}},
        MatchCase{"ImplicitAndAfterOr", "state=FAILED OR state=QUEUED jobId:rnn*", {"rnn_2"}},
        MatchCase{"NotGroup", "NOT (state=FAILED OR state=SUCCEEDED)", {"rnn_1", "rnn_2"}},
        MatchCase{"DoubleNegation", "NOT -state=FAILED", {"census_1"}},
        MatchCase{"NestedGroups", "((labels:team) AND (NOT (state=QUEUED)))", {"census_1"}}),
    [](const auto& tc) { return tc.param.name; });

struct ErrorCase {
  std::string name;
  std::string filter;
  std::string message;  // a substring of the violation's description
};

class FilterErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(FilterErrorTest, IsInvalidArgumentSayingWhere) {
  Result<ListFilter> filter = ListFilter::Parse(GetParam().filter);
  ASSERT_FALSE(filter.ok());
  EXPECT_EQ(filter.status().code(), Code::kInvalidArgument);
  ASSERT_EQ(filter.status().violations().size(), 1U);
  EXPECT_EQ(filter.status().violations()[0].field, "filter");
  EXPECT_NE(filter.status().violations()[0].description.find(GetParam().message), std::string::npos)
      << filter.status().violations()[0].description;
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, FilterErrorTest,
    ::testing::Values(
        ErrorCase{"NoOperator", "jobId", "character 6: expected an operator"},
        ErrorCase{"NoValue", "jobId:", "character 7: expected a value"},
        ErrorCase{"BareValue", "census", "after \"census\"; a bare value is not supported"},
        ErrorCase{"RegexRefused", "jobId=~census",
                  "character 6: the operator =~ (regular expression) is not supported"},
        ErrorCase{"UnknownField", "owner=me", "character 1: unknown field \"owner\""},
        ErrorCase{"UnknownState", "state=DONE", "character 7: unknown state \"DONE\""},
        ErrorCase{"OrderedState", "state<QUEUED", "state supports only =, != and :"},
        ErrorCase{"BadTime", "createTime>yesterday", "character 12: expected an RFC 3339 time"},
        ErrorCase{"TimePrefix", "createTime:2023*", "expected an RFC 3339 time"},
        ErrorCase{"UnclosedParen", "(state=FAILED", "character 1: this '(' is never closed"},
        ErrorCase{"StrayParen", "state=FAILED)", "character 13: unexpected ')'"},
        ErrorCase{"DanglingAnd", "state=FAILED AND",
                  "character 17: expected a term, found the end"},
        ErrorCase{"DanglingOr", "state=FAILED OR ", "character 17: expected a term"},
        ErrorCase{"LeadingAnd", "AND state=FAILED", "character 1: expected a term, found AND"},
        ErrorCase{"LoneNot", "NOT", "character 4: expected a term, found the end"},
        ErrorCase{"UnclosedQuote", "labels.env=\"prod", "character 12: this quoted value"},
        ErrorCase{"LabelsCompared", "labels=prod", "labels only supports labels:KEY"},
        ErrorCase{"EmptyLabelKey", "labels.=x", "unknown field \"labels.\""},
        ErrorCase{"ControlCharacter", std::string("state=FAILED AND \0", 18),
                  "character 18: expected a field name, found a control character"},
        ErrorCase{"TooDeep", std::string(100, '(') + "state=FAILED" + std::string(100, ')'),
                  "nests deeper than"},
        ErrorCase{"TooLong", "jobId:" + std::string(5000, 'a'), "longer than 4096"}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::control

namespace trainyard::control {
namespace {

// Vertex AI's dialect (customJobs.list): snake_case fields and JOB_STATE_* names.
TEST(VertexListFilterTest, FieldsAndStatesAreVertexs) {
  model::Job job;
  job.job_id = "1234";
  job.state = model::JobState::kPreparing;
  job.create_time = WallTime(std::chrono::seconds(1'700'000'000));
  job.labels = {{"team", "vision"}};
  job.extras.emplace().vertex = model::VertexResource{.kind = "CustomJob",
                                                      .location = "us-central1",
                                                      .display_name = "nightly-run",
                                                      .document = "{}",
                                                      .base_output_directory = ""};
  const struct {
    std::string_view filter;
    bool matches;
  } cases[] = {
      {"state=JOB_STATE_PENDING", true},
      {"state=job_state_pending", true},
      {"state!=JOB_STATE_PENDING", false},
      {"display_name=\"nightly-run\"", true},
      {"display_name:nightly*", true},
      {"display_name=other", false},
      {"labels.team=vision AND create_time>\"2023-01-01T00:00:00Z\"", true},
      {"labels.team=nlp OR state=JOB_STATE_RUNNING", false},
  };
  for (const auto& c : cases) {
    Result<ListFilter> filter = ListFilter::Parse(c.filter, FilterDialect::kVertex);
    ASSERT_TRUE(filter.ok()) << c.filter << ": " << filter.status().ToString();
    EXPECT_EQ(filter->Matches(job), c.matches) << c.filter;
  }
}

TEST(VertexListFilterTest, MlV1NamesAreRefusedSayingWhatIsKnown) {
  for (std::string_view text : {"state=PREPARING", "jobId=x", "displayName=x"}) {
    Result<ListFilter> filter = ListFilter::Parse(text, FilterDialect::kVertex);
    ASSERT_FALSE(filter.ok()) << text;
    EXPECT_EQ(filter.status().code(), Code::kInvalidArgument);
  }
  Result<ListFilter> filter = ListFilter::Parse("state=PREPARING", FilterDialect::kVertex);
  EXPECT_NE(filter.status().ToString().find("JOB_STATE_PENDING"), std::string::npos)
      << filter.status().ToString();
  EXPECT_TRUE(ListFilter::Parse("state=PREPARING").ok());  // ml v1 keeps its own
}

}  // namespace
}  // namespace trainyard::control
