#include "run/slurm/slurm_status.h"

#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "support/build_paths.h"

namespace trainyard::run::slurm {
namespace {

using Phase = ClusterJobState::Phase;
using Rows = std::vector<SlurmJobRow>;

// Real output of Slurm 22.05.8 on bench/peers/slurm's test cluster (squeue's jobs trimmed to
// the fields that matter here).
std::string ReadData(const std::string& name) {
  std::ifstream file(::trainyard::testing::SourceDir() + "/tests/run/slurm_data/" + name);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The rows of a sample; none when it does not parse (which the ParseSqueueJson tests report).
Rows SqueueRows(const std::string& file) {
  Result<Rows> rows = ParseSqueueJson(ReadData(file));
  return rows.ok() ? *std::move(rows) : Rows{};
}

Rows SacctRows(const std::string& file) {
  Result<Rows> rows = ParseSacctText(ReadData(file));
  return rows.ok() ? *std::move(rows) : Rows{};
}

SlurmJobRow Row(std::string id, int offset, std::string state, std::string reason) {
  return SlurmJobRow{.job_id = std::move(id),
                     .het_offset = offset,
                     .state = std::move(state),
                     .reason = std::move(reason)};
}

TEST(ParseSqueueJson, ReadsRunningAndPendingHetJobs) {
  const Result<Rows> rows = ParseSqueueJson(ReadData("squeue_het_running_pending.json"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows,
            (Rows{Row("1", 0, "RUNNING", "None"), Row("1", 1, "RUNNING", "None"),
                  Row("3", 0, "RUNNING", "None"), Row("3", 1, "RUNNING", "None"),
                  Row("5", 0, "PENDING", "Resources"), Row("5", 1, "PENDING", "Resources")}));
}

TEST(ParseSqueueJson, ReadsPlainJobsArraysAndCancelledHetJobs) {
  const Result<Rows> rows = ParseSqueueJson(ReadData("squeue_plain_array_cancelled.json"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (Rows{Row("3", 0, "COMPLETED", "None"), Row("3", 1, "COMPLETED", "None"),
                         Row("10", 0, "RUNNING", "None"), Row("14", 0, "RUNNING", "None"),
                         Row("12", 0, "CANCELLED", "None"), Row("12", 1, "CANCELLED", "None"),
                         Row("11", 0, "PENDING", "JobArrayTaskLimit")}));
}

TEST(ParseSqueueJson, ReadsLaterVersionsStateArraysAndNumberObjects) {
  const Result<Rows> rows = ParseSqueueJson(R"({"jobs": [
    {"job_id": {"set": true, "infinite": false, "number": 21},
     "job_state": ["RUNNING", "COMPLETING"], "state_reason": "None",
     "het_job_id": {"set": true, "number": 20}, "het_job_offset": {"set": true, "number": 1}},
    {"job_id": 30, "job_state": ["PENDING"],
     "het_job_id": {"set": false, "number": 0}, "het_job_offset": {"set": false, "number": 0}}
  ]})");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (Rows{Row("20", 1, "RUNNING", "None"), Row("30", 0, "PENDING", "")}));
}

TEST(ParseSqueueJson, ReadsNoJobs) {
  const Result<Rows> rows = ParseSqueueJson(R"({"meta": {}, "errors": [], "jobs": []})");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(rows->empty());
}

struct BadJsonCase {
  std::string name;
  std::string json;
  std::string message;  // a part of it
};

class ParseSqueueJsonBadTest : public ::testing::TestWithParam<BadJsonCase> {};

TEST_P(ParseSqueueJsonBadTest, IsInvalidArgument) {
  const Result<Rows> rows = ParseSqueueJson(GetParam().json);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().code(), Code::kInvalidArgument);
  EXPECT_NE(rows.status().message().find(GetParam().message), std::string::npos)
      << rows.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseSqueueJsonBadTest,
    ::testing::Values(
        BadJsonCase{"Empty", "", "not JSON"},
        BadJsonCase{"Text", "squeue: error: Invalid user", "not JSON: \"squeue: error"},
        BadJsonCase{"NoJobs", R"({"errors": []})", "no `jobs` array"},
        BadJsonCase{"JobsNotAList", R"({"jobs": {}})", "no `jobs` array"},
        BadJsonCase{"AList", R"([{"job_id": 1}])", "no `jobs` array"},
        BadJsonCase{"JobNotAnObject", R"({"jobs": [7]})", "jobs[0] is not an object"},
        BadJsonCase{"NoJobId", R"({"jobs": [{"job_id": 1, "job_state": "RUNNING"},
                                           {"job_state": "RUNNING"}]})",
                    "jobs[1] has no job_id"},
        BadJsonCase{"JobIdText", R"({"jobs": [{"job_id": "1", "job_state": "RUNNING"}]})",
                    "jobs[0] has no job_id"},
        BadJsonCase{"NegativeJobId", R"({"jobs": [{"job_id": -1, "job_state": "RUNNING"}]})",
                    "jobs[0] has no job_id"},
        BadJsonCase{"UnsetJobId",
                    R"({"jobs": [{"job_id": {"set": false, "number": 3}, "job_state": "R"}]})",
                    "jobs[0] has no job_id"},
        BadJsonCase{"NoState", R"({"jobs": [{"job_id": 4}]})", "(job 4) has no job_state"},
        BadJsonCase{"StateNumber", R"({"jobs": [{"job_id": 4, "job_state": 1}]})",
                    "has no job_state"},
        BadJsonCase{"StateEmptyArray", R"({"jobs": [{"job_id": 4, "job_state": []}]})",
                    "has no job_state"}),
    [](const auto& tc) { return tc.param.name; });

TEST(ParseSacctText, ReadsJobcompsFourColumns) {
  const Result<Rows> rows = ParseSacctText(ReadData("sacct_jobcomp.txt"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (Rows{Row("5", 0, "CANCELLED", ""), Row("6", 0, "CANCELLED", ""),
                         Row("1", 0, "COMPLETED", ""), Row("2", 0, "COMPLETED", ""),
                         Row("7", 0, "FAILED", ""), Row("8", 0, "FAILED", ""),
                         Row("9", 0, "FAILED", "")}));
}

TEST(ParseSacctText, ReadsThreeColumns) {
  const Result<Rows> rows = ParseSacctText(ReadData("sacct_jobcomp_3col.txt"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (Rows{Row("5", 0, "CANCELLED", ""), Row("1", 0, "COMPLETED", ""),
                         Row("7", 0, "FAILED", ""), Row("8", 0, "FAILED", "")}));
}

TEST(ParseSacctText, ReadsAccountingsHetComponentsAndSkipsSteps) {
  const Result<Rows> rows = ParseSacctText(
      "17+0|FAILED|3:0|NonZeroExitCode\n"
      "17+0.batch|FAILED|3:0|\n"
      "17+0.extern|COMPLETED|0:0|\n"
      "17+0.0|FAILED|3:0|\n"
      "17+1|CANCELLED by 0|0:15|None\r\n"
      "\n"
      "  \n"
      "18|CANCELLED+|0:15|None\n"
      "19_3|TIMEOUT|0:0|TimeLimit\n"
      "19_3.batch|CANCELLED|0:15|\n"
      "20_[4-9%2]|PENDING|0:0|JobArrayTaskLimit\n"
      "21|RUNNING|0:0|None|extra");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows,
            (Rows{Row("17", 0, "FAILED", "NonZeroExitCode"), Row("17", 1, "CANCELLED", "None"),
                  Row("18", 0, "CANCELLED", "None"), Row("19_3", 0, "TIMEOUT", "TimeLimit"),
                  Row("20_[4-9%2]", 0, "PENDING", "JobArrayTaskLimit"),
                  Row("21", 0, "RUNNING", "None")}));
}

TEST(ParseSacctText, ReadsNothing) {
  const Result<Rows> rows = ParseSacctText("");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(rows->empty());
}

struct BadSacctCase {
  std::string name;
  std::string text;
  std::string message;  // a part of it
};

class ParseSacctTextBadTest : public ::testing::TestWithParam<BadSacctCase> {};

TEST_P(ParseSacctTextBadTest, IsInvalidArgumentNamingTheLine) {
  const Result<Rows> rows = ParseSacctText(GetParam().text);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().code(), Code::kInvalidArgument);
  EXPECT_NE(rows.status().message().find(GetParam().message), std::string::npos)
      << rows.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseSacctTextBadTest,
    ::testing::Values(
        BadSacctCase{"TwoColumns", "1|COMPLETED|0:0\n2|FAILED\n", "line 2 has 2 columns"},
        BadSacctCase{"NotBarSeparated", "\n1 COMPLETED 0:0\n", "line 2 has 1 columns"},
        BadSacctCase{"ErrorText", "sacct: error: Problem talking to the database",
                     "line 1 has 1 columns"},
        BadSacctCase{"Header", "JobID|State|ExitCode\n", "\"JobID\" is not a Slurm job id"},
        BadSacctCase{"EmptyId", "|COMPLETED|0:0\n", "line 1: \"\" is not"},
        BadSacctCase{"NoOffset", "17+|RUNNING|0:0\n", "\"17+\" is not"},
        BadSacctCase{"LetterOffset", "17+a|RUNNING|0:0\n", "\"17+a\" is not"},
        BadSacctCase{"HugeOffset", "17+12345678|RUNNING|0:0\n", "is not a Slurm job id"},
        BadSacctCase{"NoArrayTask", "17_|RUNNING|0:0\n", "\"17_\" is not"},
        BadSacctCase{"BadArrayRest", "17_[a]|PENDING|0:0\n", "is not a Slurm job id"},
        BadSacctCase{"EmptyStep", "17.|RUNNING|0:0\n", "\"17.\" is not"},
        BadSacctCase{"StepOfStep", "17.0.1|RUNNING|0:0\n", "is not a Slurm job id"},
        BadSacctCase{"OffsetAndTask", "17+0_1|RUNNING|0:0\n", "is not a Slurm job id"}),
    [](const auto& tc) { return tc.param.name; });

struct PhaseCase {
  std::string state;
  Phase phase;
};

class PhaseOfTest : public ::testing::TestWithParam<PhaseCase> {};

TEST_P(PhaseOfTest, MapsSlurmsStateWord) {
  EXPECT_EQ(PhaseOf(GetParam().state), GetParam().phase);
}

INSTANTIATE_TEST_SUITE_P(
    Table, PhaseOfTest,
    ::testing::Values(
        PhaseCase{"PENDING", Phase::kPending}, PhaseCase{"CONFIGURING", Phase::kPending},
        PhaseCase{"REQUEUED", Phase::kPending}, PhaseCase{"REQUEUE_HOLD", Phase::kPending},
        PhaseCase{"REQUEUE_FED", Phase::kPending}, PhaseCase{"RESV_DEL_HOLD", Phase::kPending},
        PhaseCase{"SUSPENDED", Phase::kPending}, PhaseCase{"STOPPED", Phase::kPending},
        PhaseCase{"RUNNING", Phase::kRunning}, PhaseCase{"COMPLETING", Phase::kRunning},
        PhaseCase{"SIGNALING", Phase::kRunning}, PhaseCase{"STAGE_OUT", Phase::kRunning},
        PhaseCase{"RESIZING", Phase::kRunning}, PhaseCase{"COMPLETED", Phase::kFinished},
        PhaseCase{"FAILED", Phase::kFinished}, PhaseCase{"CANCELLED", Phase::kFinished},
        PhaseCase{"TIMEOUT", Phase::kFinished}, PhaseCase{"NODE_FAIL", Phase::kFinished},
        PhaseCase{"PREEMPTED", Phase::kFinished}, PhaseCase{"OUT_OF_MEMORY", Phase::kFinished},
        PhaseCase{"BOOT_FAIL", Phase::kFinished}, PhaseCase{"DEADLINE", Phase::kFinished},
        PhaseCase{"REVOKED", Phase::kFinished}, PhaseCase{"SPECIAL_EXIT", Phase::kFinished},
        PhaseCase{"", Phase::kUnknown}, PhaseCase{"running", Phase::kUnknown},
        PhaseCase{"R", Phase::kUnknown}, PhaseCase{"LAUNCH_FAILED", Phase::kUnknown}),
    [](const auto& tc) { return tc.param.state.empty() ? std::string("Empty") : tc.param.state; });

struct CombineCase {
  std::string name;
  std::string id;
  Rows rows;
  ClusterJobState expected;
};

class CombineRowsTest : public ::testing::TestWithParam<CombineCase> {};

// ClusterJobState has no operator==; its fields, compared and printed by gtest.
std::tuple<int, std::string, std::string, std::string> Fields(const ClusterJobState& state) {
  return {static_cast<int>(state.phase), state.state, state.reason, state.id};
}

TEST_P(CombineRowsTest, GivesOneStateForTheJob) {
  EXPECT_EQ(Fields(CombineRows(GetParam().id, GetParam().rows)), Fields(GetParam().expected));
}

ClusterJobState State(Phase phase, std::string state, std::string reason, std::string id) {
  return ClusterJobState{
      .phase = phase, .state = std::move(state), .reason = std::move(reason), .id = std::move(id)};
}

INSTANTIATE_TEST_SUITE_P(
    Synthetic, CombineRowsTest,
    ::testing::Values(
        CombineCase{"NoRows", "7", {}, State(Phase::kUnknown, "", "", "7")},
        CombineCase{"OtherJobsOnly",
                    "7",
                    {Row("17", 0, "RUNNING", "None")},
                    State(Phase::kUnknown, "", "", "7")},
        CombineCase{"OneRunsOneEnded",
                    "7",
                    {Row("7", 1, "COMPLETED", "None"), Row("7", 0, "RUNNING", "None")},
                    State(Phase::kRunning, "RUNNING", "None", "7")},
        CombineCase{"OneWaitsOneEnded",
                    "7",
                    {Row("7", 0, "COMPLETED", "None"), Row("7", 1, "PENDING", "Resources")},
                    State(Phase::kPending, "PENDING", "Resources", "7")},
        CombineCase{"RunningBeatsPending",
                    "7",
                    {Row("7", 0, "PENDING", "Resources"), Row("7", 1, "COMPLETING", "None")},
                    State(Phase::kRunning, "COMPLETING", "None", "7")},
        CombineCase{"FirstFailureByOffset",
                    "7",
                    {Row("7", 2, "TIMEOUT", "TimeLimit"), Row("7", 0, "COMPLETED", "None"),
                     Row("7", 1, "FAILED", "NonZeroExitCode")},
                    State(Phase::kFinished, "FAILED", "NonZeroExitCode", "7")},
        CombineCase{"AllCompleted",
                    "7",
                    {Row("7", 1, "COMPLETED", "b"), Row("7", 0, "COMPLETED", "a")},
                    State(Phase::kFinished, "COMPLETED", "a", "7")},
        CombineCase{"UnknownWord",
                    "7",
                    {Row("7", 0, "COMPLETED", "None"), Row("7", 1, "LAUNCH_FAILED", "x")},
                    State(Phase::kUnknown, "LAUNCH_FAILED", "x", "7")},
        CombineCase{"UnknownWordWhileRunning",
                    "7",
                    {Row("7", 0, "RUNNING", "None"), Row("7", 1, "LAUNCH_FAILED", "x")},
                    State(Phase::kRunning, "RUNNING", "None", "7")}),
    [](const auto& tc) { return tc.param.name; });

// The same, on real squeue and sacct output.
INSTANTIATE_TEST_SUITE_P(
    Real, CombineRowsTest,
    ::testing::Values(
        CombineCase{"HetRunning", "1", SqueueRows("squeue_het_running_pending.json"),
                    State(Phase::kRunning, "RUNNING", "None", "1")},
        CombineCase{"HetPending", "5", SqueueRows("squeue_het_running_pending.json"),
                    State(Phase::kPending, "PENDING", "Resources", "5")},
        CombineCase{"NotAJobId", "2", SqueueRows("squeue_het_running_pending.json"),
                    State(Phase::kUnknown, "", "", "2")},
        CombineCase{"HetFailed", "8", SqueueRows("squeue_het_failed.json"),
                    State(Phase::kFinished, "FAILED", "NonZeroExitCode", "8")},
        CombineCase{"HetCancelled", "12", SqueueRows("squeue_plain_array_cancelled.json"),
                    State(Phase::kFinished, "CANCELLED", "None", "12")},
        CombineCase{"HetCompleted", "3", SqueueRows("squeue_plain_array_cancelled.json"),
                    State(Phase::kFinished, "COMPLETED", "None", "3")},
        CombineCase{"PlainRunning", "10", SqueueRows("squeue_plain_array_cancelled.json"),
                    State(Phase::kRunning, "RUNNING", "None", "10")},
        CombineCase{"SacctFailed", "7", SacctRows("sacct_jobcomp.txt"),
                    State(Phase::kFinished, "FAILED", "", "7")}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::run::slurm
