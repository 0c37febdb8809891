#include "logs/log_filter.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/time_format.h"

namespace trainyard::logs {
namespace {

const LogSource kMaster{.path = "master-replica-0.log",
                        .project = "p",
                        .job_id = "job_1",
                        .task_name = "master-replica-0"};
const LogSource kWorker{.path = "trial-3/worker-replica-0.log",
                        .project = "p",
                        .job_id = "job_1",
                        .task_name = "worker-replica-0",
                        .trial_id = "3"};
const LogSource kService{.path = "service.log",
                         .project = "p",
                         .job_id = "job_1",
                         .task_name = "service",
                         .service = true};
const LogSource kOtherJob{.path = "other/master-replica-0.log",
                          .project = "p",
                          .job_id = "job_2",
                          .task_name = "master-replica-0"};

struct NamedEntry {
  std::string name;
  LogEntry entry;
};

// m0, w1 and m2 (w1 and m2 share a timestamp), s3 from the service, x4 from another job.
std::vector<NamedEntry> Entries() {
  return {
      {"m0",
       {"2026-11-21T09:35:01.000000Z", "0000000000000000-master-replica-0", Severity::kInfo,
        "Epoch 1/10 loss=0.31", &kMaster}},
      {"w1",
       {"2026-11-21T09:35:01.760285Z", "0000000000000000-worker-replica-0", Severity::kWarning,
        "WARNING:root:slow step", &kWorker}},
      {"m2",
       {"2026-11-21T09:35:01.760285Z", "0000000000000031-master-replica-0", Severity::kError,
        "Traceback (most recent call last):", &kMaster}},
      {"s3",
       {"2026-11-21T09:35:02.500000Z", "0000000000000000-service", Severity::kInfo,
        "Job completed successfully.", &kService}},
      {"x4",
       {"2026-11-21T09:35:03.000000Z", "0000000000000000-master-replica-0", Severity::kDebug,
        "other job", &kOtherJob}},
  };
}

// The exact pieces gcloud `jobs stream-logs` joins with " AND "
// (docs/reference/ai-platform-training.md §10.1).
const std::string kGcloudJob =
    "(resource.type=\"ml_job\" OR resource.type=\"cloudml_job\") AND "
    "resource.labels.job_id=\"job_1\"";
const std::string kGcloudTask =
    "(resource.labels.task_name=\"master-replica-0\" OR labels.task_name=\"master-replica-0\")";
const std::string kGcloudFirstLower = "timestamp>=\"1970-01-01T01:00:00.000000000Z\"";
const std::string kGcloudLaterLower =
    "((timestamp=\"2026-11-21T09:35:01.760285Z\" AND "
    "insertId>\"0000000000000000-worker-replica-0\") OR "
    "timestamp>\"2026-11-21T09:35:01.760285Z\")";
const std::string kGcloudUpper = "timestamp<\"2026-11-21T09:35:02.000000Z\"";
const std::string kGcloudLaterUpper = "timestamp<\"2026-11-21T09:40:00.000000Z\"";

std::string And(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    out += (out.empty() ? "" : " AND ") + part;
  }
  return out;
}

bool InScope(const LogFilter::Scope& scope, const LogEntry& entry) {
  const std::optional<WallTime> time = ParseTimestamp(entry.timestamp);
  return (!scope.project || *scope.project == entry.source->project) &&
         (!scope.job_id || *scope.job_id == entry.source->job_id) &&
         (!scope.task_names || scope.task_names->contains(entry.source->task_name)) &&
         (!scope.min_time || *time >= *scope.min_time) &&
         (!scope.max_time || *time <= *scope.max_time);
}

struct MatchCase {
  std::string name;
  std::string filter;
  std::vector<std::string> expected;  // in Entries() order
};

class LogFilterMatchTest : public ::testing::TestWithParam<MatchCase> {};

TEST_P(LogFilterMatchTest, SelectsTheExpectedEntriesAllWithinItsScope) {
  Result<LogFilter> filter = LogFilter::Parse(GetParam().filter);
  ASSERT_TRUE(filter.ok()) << filter.status().ToString();
  std::vector<std::string> matched;
  for (const NamedEntry& named : Entries()) {
    if (filter->Matches(named.entry)) {
      matched.push_back(named.name);
      EXPECT_TRUE(InScope(filter->scope(), named.entry)) << named.name << " is outside the scope";
    }
  }
  EXPECT_EQ(matched, GetParam().expected);
}

const std::vector<std::string> kAll = {"m0", "w1", "m2", "s3", "x4"};

INSTANTIATE_TEST_SUITE_P(
    Gcloud, LogFilterMatchTest,
    ::testing::Values(
        MatchCase{
            "FirstPoll", And({kGcloudJob, kGcloudFirstLower, kGcloudUpper}), {"m0", "w1", "m2"}},
        MatchCase{"LaterPollAfterEqualTimestamps",
                  And({kGcloudJob, kGcloudLaterLower, kGcloudLaterUpper}),
                  {"m2", "s3"}},
        MatchCase{"FirstPollWithTaskName",
                  And({kGcloudJob, kGcloudTask, kGcloudFirstLower, kGcloudUpper}),
                  {"m0", "m2"}},
        MatchCase{"LaterPollWithTaskName",
                  And({kGcloudJob, kGcloudTask, kGcloudLaterLower, kGcloudLaterUpper}),
                  {"m2"}}),
    [](const auto& tc) { return tc.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Fields, LogFilterMatchTest,
    ::testing::Values(
        MatchCase{"Empty", "", kAll}, MatchCase{"Blank", " \n ", kAll},
        MatchCase{"ResourceType", "resource.type=ml_job", kAll},
        MatchCase{"OtherResourceType", "resource.type=\"cloudml_job\"", {}},
        MatchCase{"Project", "resource.labels.project_id=p", kAll},
        MatchCase{"Job", "resource.labels.job_id=job_2", {"x4"}},
        MatchCase{"ResourceTaskName", "resource.labels.task_name=service", {"s3"}},
        MatchCase{"LabelTaskName", "labels.task_name=\"worker-replica-0\"", {"w1"}},
        MatchCase{"TrialLabel", "labels.trial_id=3", {"w1"}},
        MatchCase{"QuotedPlainSegments", "resource.\"labels\".\"job_id\"=job_2", {"x4"}},
        MatchCase{"QuotedTrialLabel", "labels.\"ml.googleapis.com/trial_id\"=\"3\"", {"w1"}},
        MatchCase{"NoTrialIsEmpty", "labels.trial_id=\"\"", {"m0", "m2", "s3", "x4"}},
        MatchCase{"LogName", "logName=\"projects/p/logs/service\"", {"s3"}},
        MatchCase{"InsertIdByteOrder", "insertId<\"0000000000000001\"", {"m0", "w1", "s3", "x4"}},
        MatchCase{"ReceiveTimestamp", "receiveTimestamp>=\"2026-11-21T09:35:02Z\"", {"s3", "x4"}}),
    [](const auto& tc) { return tc.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Times, LogFilterMatchTest,
    ::testing::Values(
        // Entries carry 6 fractional digits; values may carry 0 to 9: instants, to the nanosecond.
        MatchCase{
            "NineDigitsEqualSix", "timestamp=\"2026-11-21T09:35:01.760285000Z\"", {"w1", "m2"}},
        MatchCase{"OneNanosecondBefore",
                  "timestamp>\"2026-11-21T09:35:01.760284999Z\"",
                  {"w1", "m2", "s3", "x4"}},
        MatchCase{"OneNanosecondAfter",
                  "timestamp<\"2026-11-21T09:35:01.760285001Z\"",
                  {"m0", "w1", "m2"}},
        MatchCase{"StrictlyAfter", "timestamp>\"2026-11-21T09:35:01.760285Z\"", {"s3", "x4"}},
        MatchCase{"WholeSeconds", "timestamp>=2026-11-21T09:35:02Z", {"s3", "x4"}},
        MatchCase{"UtcOffset", "timestamp<=\"2026-11-21T10:35:01+01:00\"", {"m0"}},
        MatchCase{"Range",
                  "timestamp>=\"2026-11-21T09:35:01.5Z\" AND timestamp<\"2026-11-21T09:35:03Z\"",
                  {"w1", "m2", "s3"}},
        MatchCase{"HasIsEquality", "timestamp:\"2026-11-21T09:35:03Z\"", {"x4"}},
        MatchCase{"NotEqual", "timestamp!=\"2026-11-21T09:35:01.760285Z\"", {"m0", "s3", "x4"}}),
    [](const auto& tc) { return tc.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Severities, LogFilterMatchTest,
    ::testing::Values(
        MatchCase{"AtLeastWarning", "severity>=WARNING", {"w1", "m2"}},
        MatchCase{"AnyCase", "severity>=warning", {"w1", "m2"}},
        MatchCase{"Above", "severity>WARNING", {"m2"}},
        MatchCase{"BelowInfo", "severity<INFO", {"x4"}},
        MatchCase{"AtMostInfo", "severity<=INFO", {"m0", "s3", "x4"}},
        MatchCase{"Equal", "severity=ERROR", {"m2"}},
        MatchCase{"HasIsEquality", "severity:INFO", {"m0", "s3"}},
        MatchCase{"NotEqual", "severity!=INFO", {"w1", "m2", "x4"}},
        MatchCase{"Band", "severity>=DEBUG AND severity<=WARNING", {"m0", "w1", "s3", "x4"}}),
    [](const auto& tc) { return tc.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Text, LogFilterMatchTest,
    ::testing::Values(MatchCase{"SubstringAnyCase", "textPayload:\"EPOCH\"", {"m0"}},
                      MatchCase{"SubstringBareWord", "textPayload:slow", {"w1"}},
                      MatchCase{"ServiceTextIsJsonPayload", "textPayload:completed", {}},
                      MatchCase{"JsonPayloadMessage", "jsonPayload.message:COMPLETED", {"s3"}},
                      MatchCase{"ExactText", "textPayload=\"Epoch 1/10 loss=0.31\"", {"m0"}},
                      MatchCase{"ExactIsCaseSensitive", "textPayload=\"epoch 1/10 loss=0.31\"", {}},
                      MatchCase{"TextPresent", "textPayload:*", {"m0", "w1", "m2", "x4"}},
                      MatchCase{"JsonMessagePresent", "jsonPayload.message:*", {"s3"}},
                      MatchCase{"QuotedStarIsLiteral", "textPayload:\"*\"", {}},
                      MatchCase{"EmptySubstring", "textPayload:\"\"", kAll},
                      MatchCase{"SubstringOfLabel",
                                "resource.labels.task_name:replica",
                                {"m0", "w1", "m2", "x4"}}),
    [](const auto& tc) { return tc.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Logic, LogFilterMatchTest,
    ::testing::Values(
        MatchCase{"Not", "NOT severity=INFO", {"w1", "m2", "x4"}},
        MatchCase{"MinusIsNot", "-resource.labels.job_id=job_1", {"x4"}},
        MatchCase{"NotGroup", "NOT (severity=INFO OR severity=DEBUG)", {"w1", "m2"}},
        MatchCase{"NotTime", "NOT timestamp<\"2026-11-21T09:35:02Z\"", {"s3", "x4"}},
        MatchCase{"Or", "labels.task_name=service OR severity=DEBUG", {"s3", "x4"}},
        // Cloud Logging, like AIP-160: OR binds tighter than AND.
        MatchCase{"OrBindsTighter",
                  "severity=ERROR AND labels.task_name=master-replica-0 OR "
                  "labels.task_name=worker-replica-0",
                  {"m2"}},
        MatchCase{"Parentheses",
                  "(severity=ERROR AND labels.task_name=master-replica-0) OR "
                  "labels.task_name=worker-replica-0",
                  {"w1", "m2"}},
        MatchCase{"ImplicitAnd", "resource.labels.job_id=job_1 severity=INFO", {"m0", "s3"}}),
    [](const auto& tc) { return tc.param.name; });

struct ScopeCase {
  std::string name;
  std::string filter;
  std::optional<std::string> project;
  std::optional<std::string> job_id;
  std::optional<std::set<std::string>> task_names;
  std::optional<std::string> min_time;  // RFC 3339
  std::optional<std::string> max_time;
};

class LogFilterScopeTest : public ::testing::TestWithParam<ScopeCase> {};

std::optional<WallTime> Time(const std::optional<std::string>& text) {
  return text.has_value() ? ParseTimestamp(*text) : std::nullopt;
}

TEST_P(LogFilterScopeTest, ImpliesTheExpectedBounds) {
  Result<LogFilter> filter = LogFilter::Parse(GetParam().filter);
  ASSERT_TRUE(filter.ok()) << filter.status().ToString();
  const LogFilter::Scope& scope = filter->scope();
  EXPECT_EQ(scope.project, GetParam().project);
  EXPECT_EQ(scope.job_id, GetParam().job_id);
  EXPECT_EQ(scope.task_names, GetParam().task_names);
  EXPECT_EQ(scope.min_time, Time(GetParam().min_time));
  EXPECT_EQ(scope.max_time, Time(GetParam().max_time));
}

const std::string kT1 = "2026-11-21T09:35:01.000000Z";
const std::string kT2 = "2026-11-21T09:35:02.000000Z";
const std::string kT3 = "2026-11-21T09:35:03.000000Z";
const std::string kT4 = "2026-11-21T09:35:04.000000Z";
const std::string kLastTs = "2026-11-21T09:35:01.760285Z";
const std::set<std::string> kMasterTask = {"master-replica-0"};
std::string Ts(const std::string& op, const std::string& time) {
  return "timestamp" + op + "\"" + time + "\"";
}

INSTANTIATE_TEST_SUITE_P(
    Scopes, LogFilterScopeTest,
    ::testing::Values(
        ScopeCase{"Empty", ""},
        ScopeCase{"GcloudFirstPoll", And({kGcloudJob, kGcloudFirstLower, kGcloudUpper}),
                  std::nullopt, "job_1", std::nullopt, "1970-01-01T01:00:00Z", kT2},
        ScopeCase{"GcloudLaterPoll", And({kGcloudJob, kGcloudLaterLower, kGcloudLaterUpper}),
                  std::nullopt, "job_1", std::nullopt, kLastTs, "2026-11-21T09:40:00Z"},
        ScopeCase{"GcloudWithTaskName",
                  And({kGcloudJob, kGcloudTask, kGcloudLaterLower, kGcloudLaterUpper}),
                  std::nullopt, "job_1", kMasterTask, kLastTs, "2026-11-21T09:40:00Z"},
        ScopeCase{"ProjectAndJob", "resource.labels.project_id=p resource.labels.job_id=j", "p",
                  "j"},
        ScopeCase{"LogNameIsProjectAndTask",
                  "logName=\"projects/p/logs/cloudaudit.googleapis.com%2Factivity\"", "p",
                  std::nullopt, std::set<std::string>{"cloudaudit.googleapis.com%2Factivity"}},
        ScopeCase{"LogNameSubstringBoundsNothing", "logName:activity"},
        ScopeCase{"EqualTimestampIsBothBounds", Ts("=", kT2), std::nullopt, std::nullopt,
                  std::nullopt, kT2, kT2},
        ScopeCase{"HasTimestampIsBothBounds", "timestamp:\"" + kT2 + "\"", std::nullopt,
                  std::nullopt, std::nullopt, kT2, kT2},
        ScopeCase{"ReceiveTimestampBounds", "receiveTimestamp>=\"" + kT1 + "\"", std::nullopt,
                  std::nullopt, std::nullopt, kT1},
        ScopeCase{"AndTightens", And({Ts(">=", kT1), Ts(">", kT2), Ts("<", kT4), Ts("<=", kT3)}),
                  std::nullopt, std::nullopt, std::nullopt, kT2, kT3},
        ScopeCase{"OrLoosens",
                  "(" + Ts(">=", kT2) + " AND " + Ts("<", kT3) + ") OR (" + Ts(">=", kT1) +
                      " AND " + Ts("<", kT4) + ")",
                  std::nullopt, std::nullopt, std::nullopt, kT1, kT4},
        ScopeCase{"OrOfTasks", "labels.task_name=a OR resource.labels.task_name=b", std::nullopt,
                  std::nullopt, std::set<std::string>{"a", "b"}},
        ScopeCase{"AndIntersectsTasks",
                  "(labels.task_name=a OR labels.task_name=b) AND resource.labels.task_name=b",
                  std::nullopt, std::nullopt, std::set<std::string>{"b"}},
        ScopeCase{"OrOfSameJob",
                  "resource.labels.job_id=j OR (resource.labels.job_id=j AND severity=ERROR)",
                  std::nullopt, "j"},
        ScopeCase{"OrInsideAndKeepsTheAnd",
                  "resource.labels.job_id=j AND (severity=ERROR OR " + Ts(">", kT1) + ")",
                  std::nullopt, "j"},
        // Soundness: each of these admits entries that a bound would wrongly exclude.
        ScopeCase{"OrWithAnUnboundedSide", Ts(">=", kT1) + " OR severity=ERROR"},
        ScopeCase{"OrOfDifferentJobs", "resource.labels.job_id=a OR resource.labels.job_id=b"},
        ScopeCase{"OrOfTaskAndAnything", "labels.task_name=a OR textPayload:x"},
        ScopeCase{"OrOfLowerAndUpper", Ts(">=", kT3) + " OR " + Ts("<", kT1)},
        ScopeCase{"NotGivesNoBound", "NOT " + Ts("<", kT1) + " AND NOT resource.labels.job_id=j"},
        ScopeCase{"NotEqualGivesNoBound",
                  "resource.labels.job_id!=j AND labels.task_name!=a AND " + Ts("!=", kT1)},
        ScopeCase{
            "SubstringGivesNoBound",
            "resource.labels.job_id:j AND labels.task_name:a AND resource.labels.project_id:p"},
        ScopeCase{"OrderingOnTextGivesNoBound", "resource.labels.job_id>=j"},
        ScopeCase{"PresenceGivesNoBound", "labels.task_name:*"},
        ScopeCase{"OtherFieldsGiveNoBound", "labels.trial_id=3 AND insertId>\"5\""}),
    [](const auto& tc) { return tc.param.name; });

struct ErrorCase {
  std::string name;
  std::string filter;
  std::string message;  // a substring of the violation's description
};

class LogFilterErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(LogFilterErrorTest, IsInvalidArgumentOnFilterSayingWhereAndWhat) {
  Result<LogFilter> filter = LogFilter::Parse(GetParam().filter);
  ASSERT_FALSE(filter.ok());
  EXPECT_EQ(filter.status().code(), Code::kInvalidArgument);
  ASSERT_EQ(filter.status().violations().size(), 1U);
  EXPECT_EQ(filter.status().violations()[0].field, "filter");
  EXPECT_NE(filter.status().violations()[0].description.find(GetParam().message), std::string::npos)
      << filter.status().violations()[0].description;
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, LogFilterErrorTest,
    ::testing::Values(
        ErrorCase{"UnknownField", "resource.labels.job_id=j AND foo=bar",
                  "character 30: unknown field \"foo\"; fields are resource.type, "
                  "resource.labels.project_id, resource.labels.job_id, "
                  "resource.labels.task_name, labels.task_name, labels.trial_id, "
                  "labels.\"ml.googleapis.com/trial_id\", logName, timestamp, receiveTimestamp, "
                  "insertId, severity, textPayload, jsonPayload.message, protoPayload.<field> "
                  "and resource.labels.service, .method (audit entries)"},
        ErrorCase{"UnknownLabel", "labels.task=a", "character 1: unknown field \"labels.task\""},
        ErrorCase{"UnquotedDottedLabel", "labels.ml.googleapis.com/trial_id=3",
                  "character 25: expected an operator"},
        ErrorCase{"JsonPayloadOtherKey", "jsonPayload.levelname=INFO",
                  "unknown field \"jsonPayload.levelname\""},
        ErrorCase{"Regex", "textPayload=~\"err.*\"",
                  "character 12: the operator =~ (regular expression) is not supported"},
        ErrorCase{"NotRegex", "textPayload !~ x", "character 13: the operator !~"},
        ErrorCase{"BadTimestamp", "timestamp>=\"yesterday\"",
                  "character 12: expected an RFC 3339 time such as "
                  "\"2024-01-31T12:00:00.000000Z\" for timestamp, found \"yesterday\""},
        ErrorCase{"TenFractionalDigits", "timestamp>2026-11-21T09:35:01.1234567890Z",
                  "character 11: expected an RFC 3339 time"},
        ErrorCase{"DateOnly", "receiveTimestamp<2026-11-21",
                  "expected an RFC 3339 time such as \"2024-01-31T12:00:00.000000Z\" for "
                  "receiveTimestamp"},
        ErrorCase{"TimestampPresence", "timestamp:*", "expected an RFC 3339 time"},
        ErrorCase{"BadSeverity", "severity>=WARN",
                  "character 11: unknown severity \"WARN\"; severities are DEFAULT, DEBUG, "
                  "INFO, NOTICE, WARNING, ERROR, CRITICAL, ALERT, EMERGENCY"},
        ErrorCase{"NumericSeverity", "severity>=400", "unknown severity \"400\""},
        ErrorCase{"BareQuotedValue", "\"error\"",
                  "character 1: expected a field name, found "
                  "'\"'; a bare value is not supported"},
        ErrorCase{"BareWordAfterTerm", "resource.labels.job_id=j error",
                  "character 31: expected an operator (=, !=, <, <=, >, >=, :) after "
                  "\"error\"; a bare value is not supported"},
        ErrorCase{"MissingValue", "severity=", "character 10: expected a value"},
        ErrorCase{"UnclosedParen", "(severity=ERROR", "character 1: this '(' is never closed"},
        ErrorCase{"StrayParen", "severity=ERROR)", "character 15: unexpected ')'"},
        ErrorCase{"LeftmostProblemFirst", "foo=1 AND severity=BAD",
                  "character 1: unknown field \"foo\""},
        ErrorCase{"DanglingOr", "severity=ERROR OR", "expected a term, found the end"}),
    [](const auto& tc) { return tc.param.name; });

// Audit entries (LogSource::audit): fields of the AuditLog record their text holds.
TEST(LogFilterAuditTest, MatchesFieldsOfTheAuditRecord) {
  const LogSource audit{.path = "activity.log",
                        .project = "p",
                        .task_name = "cloudaudit.googleapis.com%2Factivity",
                        .audit = true};
  const LogEntry refused{
      "2026-11-21T09:35:01.000000Z", "0000000000000000-cloudaudit.googleapis.com%2Factivity",
      Severity::kError,
      R"({"protoPayload":{"methodName":"google.cloud.ml.v1.JobService.CreateJob",)"
      R"("authenticationInfo":{"principalEmail":"bob"},"status":{"code":7,"message":"no"},)"
      R"("authorizationInfo":[{"granted":false}]},)"
      R"("resource":{"type":"audited_resource","labels":{"method":"m","service":"s"}}})",
      &audit};
  const LogEntry broken{"2026-11-21T09:35:02.000000Z", "x", Severity::kNotice, "{not json", &audit};
  const LogEntry job_line{"2026-11-21T09:35:01.000000Z", "y", Severity::kInfo,
                          R"({"protoPayload":{"methodName":"x"}})", &kMaster};
  const struct {
    std::string filter;
    bool refused, broken, job_line;
  } cases[] = {
      {"protoPayload.methodName=\"google.cloud.ml.v1.JobService.CreateJob\"", true, false, false},
      {"protoPayload.methodName:CreateJob", true, false, false},
      {"protoPayload.methodName=x", false, false, false},  // only audit entries have one
      {"protoPayload.authenticationInfo.principalEmail=bob", true, false, false},
      {"protoPayload.status.code=7", true, false, false},
      {"protoPayload.status.code:*", true, false, false},
      {"protoPayload.authorizationInfo:*", false, false, false},  // a list is not a value
      {"resource.type=audited_resource", true, true, false},
      {"resource.type=ml_job", false, false, true},
      {"resource.labels.service=s resource.labels.method=m", true, false, false},
      {"logName=\"projects/p/logs/cloudaudit.googleapis.com%2Factivity\"", true, true, false},
      {"NOT protoPayload.methodName:*", false, true, true},
  };
  for (const auto& c : cases) {
    Result<LogFilter> filter = LogFilter::Parse(c.filter);
    ASSERT_TRUE(filter.ok()) << c.filter << ": " << filter.status().ToString();
    EXPECT_EQ(filter->Matches(refused), c.refused) << c.filter;
    EXPECT_EQ(filter->Matches(broken), c.broken) << c.filter;
    EXPECT_EQ(filter->Matches(job_line), c.job_line) << c.filter;
  }
}

}  // namespace
}  // namespace trainyard::logs
