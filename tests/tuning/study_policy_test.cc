// The study rules of tuning/study_policy.h: limits, when trials start and the job ends, the
// history suggesters see, trial numbering, resuming, and the order of trials in the output.
#include "tuning/study_policy.h"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tuning/spaces.h"

namespace trainyard::tuning {
namespace {

using namespace test_spaces;  // NOLINT(google-build-using-namespace): the test builders
using model::GoalType;
using model::HyperparameterOutput;
using model::JobState;

model::HyperparameterSpec Limits(int max_trials, int max_parallel, int max_failed) {
  model::HyperparameterSpec spec = Spec({Integer("n", 1, 10)});
  spec.max_trials = max_trials;
  spec.max_parallel_trials = max_parallel;
  spec.max_failed_trials = max_failed;
  return spec;
}

HyperparameterOutput Trial(std::string id, JobState state, std::optional<double> metric = {},
                           std::map<std::string, std::string> hyperparameters = {}) {
  HyperparameterOutput trial;
  trial.trial_id = std::move(id);
  trial.state = state;
  if (metric) {
    trial.final_metric =
        model::HyperparameterMetric{.training_step = 1, .objective_value = *metric};
  }
  trial.hyperparameters = std::move(hyperparameters);
  return trial;
}

// Trials numbered from 1 in the given states; `measured` ones carry a finalMetric.
std::vector<HyperparameterOutput> Trials(std::initializer_list<std::pair<JobState, bool>> states) {
  std::vector<HyperparameterOutput> out;
  for (const auto& [state, measured] : states) {
    out.push_back(Trial(std::to_string(out.size() + 1), state,
                        measured ? std::optional<double>(0.5) : std::nullopt));
  }
  return out;
}

constexpr std::pair<JobState, bool> kRunning{JobState::kRunning, false};
constexpr std::pair<JobState, bool> kMeasured{JobState::kSucceeded, true};
constexpr std::pair<JobState, bool> kUnmeasured{JobState::kSucceeded, false};
constexpr std::pair<JobState, bool> kFailed{JobState::kFailed, false};

// ---- LimitsOf, MetricTagOf ----

struct LimitsCase {
  std::string name;
  int max_trials, max_parallel, max_failed;
  StudyLimits want;
};

class LimitsOfTest : public ::testing::TestWithParam<LimitsCase> {};

TEST_P(LimitsOfTest, DefaultsAndClamps) {
  const LimitsCase& c = GetParam();
  const StudyLimits got = LimitsOf(Limits(c.max_trials, c.max_parallel, c.max_failed));
  EXPECT_EQ(got.max_trials, c.want.max_trials);
  EXPECT_EQ(got.max_parallel_trials, c.want.max_parallel_trials);
  EXPECT_EQ(got.max_failed_trials, c.want.max_failed_trials);
}

INSTANTIATE_TEST_SUITE_P(
    Table, LimitsOfTest,
    ::testing::Values(LimitsCase{"UnsetMeansOneOfEach", 0, 0, 0, {1, 1, 1}},
                      LimitsCase{"NegativeMeansUnset", -3, -1, -2, {1, 1, 1}},
                      LimitsCase{"ParallelCappedByTrials", 4, 10, 0, {4, 4, 2}},
                      LimitsCase{"FailedZeroIsHalfOfOddTrialsRoundedUp", 5, 2, 0, {5, 2, 3}},
                      LimitsCase{"FailedZeroIsHalfOfEvenTrials", 10, 3, 0, {10, 3, 5}},
                      LimitsCase{"ExplicitValuesKept", 10, 3, 7, {10, 3, 7}},
                      LimitsCase{"FailedAboveTrialsKept", 2, 1, 5, {2, 1, 5}}),
    [](const auto& tc) { return tc.param.name; });

TEST(MetricTagOfTest, TagOrTheLibraryDefault) {
  model::HyperparameterSpec spec;
  EXPECT_EQ(MetricTagOf(spec), "training/hptuning/metric");
  spec.hyperparameter_metric_tag = "val_accuracy";
  EXPECT_EQ(MetricTagOf(spec), "val_accuracy");
}

// ---- DecideStudy ----

const std::string kNoMetricDefault =
    "No trial reported the hyperparameter metric training/hptuning/metric: report it with "
    "hypertune.HyperTune().report_hyperparameter_tuning_metric(hyperparameter_metric_tag="
    "'training/hptuning/metric', metric_value=…), which writes the file CLOUD_ML_HP_METRIC_FILE "
    "names.";

struct DecideCase {
  std::string name;
  model::HyperparameterSpec spec;
  std::vector<HyperparameterOutput> trials;
  bool exhausted = false;
  std::string last_failure;
  // What the decision must be.
  int start = 0;
  bool stop_running = false;
  bool finished = false;
  JobState outcome = JobState::kUnspecified;
  std::string message;
};

class DecideStudyTest : public ::testing::TestWithParam<DecideCase> {};

TEST_P(DecideStudyTest, Decides) {
  const DecideCase& c = GetParam();
  const StudyDecision got = DecideStudy(c.spec, c.trials, c.exhausted, c.last_failure);
  EXPECT_EQ(got.start, c.start);
  EXPECT_EQ(got.stop_running, c.stop_running);
  EXPECT_EQ(got.finished, c.finished);
  EXPECT_EQ(model::JobStateName(got.outcome), model::JobStateName(c.outcome));
  EXPECT_EQ(got.message, c.message);
}

model::HyperparameterSpec WithTag(model::HyperparameterSpec spec, std::string tag) {
  spec.hyperparameter_metric_tag = std::move(tag);
  return spec;
}

INSTANTIATE_TEST_SUITE_P(
    Table, DecideStudyTest,
    ::testing::Values(
        // Starting trials.
        DecideCase{.name = "FirstCallFillsParallelSlots", .spec = Limits(10, 3, 0), .start = 3},
        DecideCase{.name = "DefaultsStartOneTrial", .spec = Limits(0, 0, 0), .start = 1},
        DecideCase{.name = "StartCappedByTrialsLeft",
                   .spec = Limits(5, 3, 0),
                   .trials = Trials({kMeasured, kMeasured, kMeasured, kRunning}),
                   .start = 1},
        DecideCase{.name = "FreedSlotRefilled",
                   .spec = Limits(10, 2, 0),
                   .trials = Trials({kMeasured, kRunning}),
                   .start = 1},
        DecideCase{.name = "AllSlotsBusyStartsNone",
                   .spec = Limits(10, 2, 0),
                   .trials = Trials({kRunning, kRunning})},
        DecideCase{.name = "FailuresBelowLimitKeepStarting",
                   .spec = Limits(10, 2, 3),
                   .trials = Trials({kFailed, kFailed}),
                   .last_failure = "exit status 1",
                   .start = 2},
        // Waiting for running trials.
        DecideCase{.name = "MaxTrialsStartedWaitsForRunning",
                   .spec = Limits(2, 2, 0),
                   .trials = Trials({kMeasured, kRunning})},
        DecideCase{.name = "ExhaustedGridWaitsForRunning",
                   .spec = Limits(10, 2, 0),
                   .trials = Trials({kMeasured, kRunning}),
                   .exhausted = true},
        // Finishing.
        DecideCase{.name = "AllTrialsDoneSucceeds",
                   .spec = Limits(2, 1, 0),
                   .trials = Trials({kMeasured, kMeasured}),
                   .finished = true,
                   .outcome = JobState::kSucceeded},
        DecideCase{.name = "ExhaustedGridSucceedsBeforeMaxTrials",
                   .spec = Limits(10, 2, 0),
                   .trials = Trials({kMeasured, kUnmeasured}),
                   .exhausted = true,
                   .finished = true,
                   .outcome = JobState::kSucceeded},
        DecideCase{.name = "OneMeasuredTrialIsEnough",
                   .spec = Limits(3, 1, 5),
                   .trials = Trials({kFailed, kUnmeasured, kMeasured}),
                   .last_failure = "boom",
                   .finished = true,
                   .outcome = JobState::kSucceeded},
        DecideCase{.name = "NoMetricFails",
                   .spec = Limits(2, 1, 5),
                   .trials = Trials({kUnmeasured, kUnmeasured}),
                   .finished = true,
                   .outcome = JobState::kFailed,
                   .message = kNoMetricDefault},
        DecideCase{.name = "NoMetricNamesTheTag",
                   .spec = WithTag(Limits(1, 1, 0), "val_acc"),
                   .trials = Trials({kUnmeasured}),
                   .finished = true,
                   .outcome = JobState::kFailed,
                   .message = "No trial reported the hyperparameter metric val_acc: report it "
                              "with hypertune.HyperTune().report_hyperparameter_tuning_metric("
                              "hyperparameter_metric_tag='val_acc', metric_value=…), which "
                              "writes the file CLOUD_ML_HP_METRIC_FILE names."},
        DecideCase{.name = "ExhaustedEmptyGridFails",
                   .spec = Limits(10, 2, 0),
                   .exhausted = true,
                   .finished = true,
                   .outcome = JobState::kFailed,
                   .message = kNoMetricDefault},
        // The failure limit.
        DecideCase{.name = "FailureLimitEndsJob",
                   .spec = Limits(10, 2, 2),
                   .trials = Trials({kMeasured, kFailed, kFailed}),
                   .last_failure = "exit status 3",
                   .finished = true,
                   .outcome = JobState::kFailed,
                   .message = "2 trials failed, which reaches maxFailedTrials (2). The last "
                              "failure: exit status 3"},
        DecideCase{.name = "FailureLimitStopsRunningTrials",
                   .spec = Limits(10, 3, 1),
                   .trials = Trials({kRunning, kFailed, kRunning}),
                   .stop_running = true,
                   .outcome = JobState::kFailed,
                   .message = "1 trial failed, which reaches maxFailedTrials (1)."},
        DecideCase{.name = "DefaultFailureLimitMessage",
                   .spec = Limits(4, 1, 0),
                   .trials = Trials({kFailed, kFailed}),
                   .last_failure = "Replica master 0 exited with a non-zero status of 1.",
                   .finished = true,
                   .outcome = JobState::kFailed,
                   .message = "2 trials failed, which reaches the limit trainyard sets when "
                              "maxFailedTrials is 0 (half of maxTrials, rounded up: 2). The last "
                              "failure: Replica master 0 exited with a non-zero status of 1."},
        DecideCase{.name = "FailureLimitBeatsExhaustedGrid",
                   .spec = Limits(10, 1, 1),
                   .trials = Trials({kMeasured, kFailed}),
                   .exhausted = true,
                   .finished = true,
                   .outcome = JobState::kFailed,
                   .message = "1 trial failed, which reaches maxFailedTrials (1)."}),
    [](const auto& tc) { return tc.param.name; });

// ---- HistoryOf ----

std::string ValuesText(const Assignment& point) {
  std::string out;
  for (const ParameterValue& value : point) {
    out += (out.empty() ? "" : " ") + value.Text();
  }
  return out;
}

struct HistoryCase {
  std::string name;
  std::vector<HyperparameterOutput> trials;
  std::vector<std::pair<std::string, double>> completed;  // point, objective
  std::vector<std::string> running;
};

class HistoryOfTest : public ::testing::TestWithParam<HistoryCase> {};

TEST_P(HistoryOfTest, SplitsTrials) {
  const ConditionalSpace space =
      *ConditionalSpace::Make(Spec({Integer("n", 1, 10), Categorical("c", {"a", "b"})}), {});
  const StudyHistory history = HistoryOf(space, GetParam().trials);
  std::vector<std::pair<std::string, double>> completed;
  for (const Observation& observation : history.completed) {
    completed.emplace_back(ValuesText(observation.params), observation.objective);
  }
  std::vector<std::string> running;
  for (const Assignment& point : history.running) {
    running.push_back(ValuesText(point));
  }
  EXPECT_EQ(completed, GetParam().completed);
  EXPECT_EQ(running, GetParam().running);
}

INSTANTIATE_TEST_SUITE_P(
    Table, HistoryOfTest,
    ::testing::Values(
        HistoryCase{"Empty", {}, {}, {}},
        HistoryCase{"MeasuredTrialsAreObservationsInTrialOrder",
                    {Trial("1", JobState::kSucceeded, 0.5, {{"n", "3"}, {"c", "a"}}),
                     Trial("2", JobState::kSucceeded, -1.25, {{"c", "b"}, {"n", "7"}})},
                    {{"3 a", 0.5}, {"7 b", -1.25}},
                    {}},
        HistoryCase{"RunningFailedAndUnmeasuredAreNotToRetry",
                    {Trial("1", JobState::kRunning, {}, {{"n", "4"}, {"c", "b"}}),
                     Trial("2", JobState::kFailed, {}, {{"n", "5"}, {"c", "a"}}),
                     Trial("3", JobState::kSucceeded, {}, {{"n", "6"}, {"c", "b"}}),
                     Trial("4", JobState::kSucceeded, 0.75, {{"n", "1"}, {"c", "a"}})},
                    {{"1 a", 0.75}},
                    {"4 b", "5 a", "6 b"}},
        HistoryCase{"UnparsableTrialsSkipped",
                    {Trial("1", JobState::kSucceeded, 0.5, {{"n", "3"}}),
                     Trial("2", JobState::kSucceeded, 0.5, {{"n", "2.5"}, {"c", "a"}}),
                     Trial("3", JobState::kFailed, {}, {{"n", "x"}, {"c", "a"}}),
                     Trial("4", JobState::kRunning, {}, {{"lr", "0.1"}, {"c", "b"}}),
                     Trial("5", JobState::kSucceeded, 0.25, {{"n", "9"}, {"c", "b"}})},
                    {{"9 b", 0.25}},
                    {}}),
    [](const auto& tc) { return tc.param.name; });

// A conditional study's trials carry only their active parameters; the history completes each
// with the inactive ones' stand-ins, so every observation is a point of the flat space.
TEST(HistoryOfTest, CompletesConditionalTrials) {
  const std::vector<model::ParameterCondition> conditions = {
      {.parameter = "m", .parent = "c", .parent_values = {}, .parent_categories = {"b"}}};
  const ConditionalSpace space = *ConditionalSpace::Make(
      Spec({Categorical("c", {"a", "b"}), Double("m", 0.5, 0.9)}), conditions);
  const std::vector<HyperparameterOutput> trials = {
      Trial("1", JobState::kSucceeded, 0.5, {{"c", "a"}}),
      Trial("2", JobState::kSucceeded, 0.25, {{"c", "b"}, {"m", "0.75"}}),
      Trial("3", JobState::kSucceeded, 0.1, {{"c", "b"}}),  // m missing
      Trial("4", JobState::kRunning, {}, {{"c", "a"}, {"m", "0.6"}})};
  const StudyHistory history = HistoryOf(space, trials);
  std::vector<std::pair<std::string, double>> completed;
  for (const Observation& observation : history.completed) {
    completed.emplace_back(ValuesText(observation.params), observation.objective);
  }
  EXPECT_EQ(completed,
            (std::vector<std::pair<std::string, double>>{{"a 0.5", 0.5}, {"b 0.75", 0.25}}));
  ASSERT_EQ(history.running.size(), 1U);
  EXPECT_EQ(ValuesText(history.running[0]), "a 0.5");  // an inactive value is its stand-in
}

// A multi-objective study's observations carry their other metrics' values; a trial without a
// measurement has none (the suggester then does not count it as an observation).
TEST(HistoryOfTest, ObservationsCarryTheirOtherMetrics) {
  const ConditionalSpace space = *ConditionalSpace::Make(Spec({Integer("n", 1, 10)}), {});
  const std::vector<HyperparameterOutput> trials = {
      Trial("1", JobState::kSucceeded, 0.5, {{"n", "1"}}),
      Trial("2", JobState::kSucceeded, 0.25, {{"n", "2"}}),
      Trial("3", JobState::kRunning, {}, {{"n", "3"}})};
  const std::vector<model::TrialMeasurement> measurements = {{.trial_id = "3", .values = {9}},
                                                             {.trial_id = "1", .values = {4, 8}}};
  const StudyHistory history = HistoryOf(space, trials, measurements);
  ASSERT_EQ(history.completed.size(), 2U);
  EXPECT_EQ(history.completed[0].more, (std::vector<double>{4, 8}));
  EXPECT_TRUE(history.completed[1].more.empty());
  EXPECT_EQ(history.running.size(), 1U);
}

// ---- NextTrialId ----

struct NextIdCase {
  std::string name;
  std::vector<std::string> ids;
  std::int64_t want;
};

class NextTrialIdTest : public ::testing::TestWithParam<NextIdCase> {};

TEST_P(NextTrialIdTest, OneMoreThanTheLargestNumber) {
  std::vector<HyperparameterOutput> trials;
  for (const std::string& id : GetParam().ids) {
    trials.push_back(Trial(id, JobState::kSucceeded));
  }
  EXPECT_EQ(NextTrialId(trials), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, NextTrialIdTest,
    ::testing::Values(NextIdCase{"NoTrials", {}, 1}, NextIdCase{"Consecutive", {"1", "2", "3"}, 4},
                      NextIdCase{"GapsUseTheLargest", {"1", "5", "3"}, 6},
                      NextIdCase{"NumericNotTextOrder", {"9", "10"}, 11},
                      NextIdCase{"NonNumericIgnored", {"abc", "2", "7x", "", " 8", "+9"}, 3},
                      NextIdCase{"OnlyNonNumeric", {"trial-4", "x"}, 1},
                      NextIdCase{"ZeroAndNegativeIgnored", {"0", "-4"}, 1}),
    [](const auto& tc) { return tc.param.name; });

// ---- CheckResumable ----

constexpr std::string_view kResumeField = "trainingInput.hyperparameters.resumePreviousJobId";

model::Job Previous(JobState state, std::vector<model::ParameterSpec> params) {
  model::Job job;
  job.job_id = "old";
  job.state = state;
  job.training_input.emplace();
  job.training_input->hyperparameters = Spec(std::move(params));
  return job;
}

model::Job NotTuning(bool with_training_input) {
  model::Job job;
  job.job_id = "old";
  job.state = JobState::kSucceeded;
  if (with_training_input) {
    job.training_input.emplace();
  }
  return job;
}

struct ResumeCase {
  std::string name;
  std::vector<model::ParameterSpec> params;  // the new job's
  model::Job previous;
  Code code = Code::kOk;
  std::string message;  // the violation's description for INVALID_ARGUMENT, else the message
};

class CheckResumableTest : public ::testing::TestWithParam<ResumeCase> {};

TEST_P(CheckResumableTest, Checks) {
  const ResumeCase& c = GetParam();
  model::HyperparameterSpec spec = Spec(c.params);
  spec.resume_previous_job_id = "old";
  const Status status = CheckResumable(spec, c.previous);
  ASSERT_EQ(status.code(), c.code) << status.ToString();
  if (c.code == Code::kInvalidArgument) {
    ASSERT_EQ(status.violations().size(), 1U) << status.ToString();
    EXPECT_EQ(status.violations()[0].field, kResumeField);
    EXPECT_EQ(status.violations()[0].description, c.message);
  } else if (c.code != Code::kOk) {
    EXPECT_EQ(status.message(), c.message);
  }
}

const std::vector<model::ParameterSpec> kParams = {Integer("n", 1, 10),
                                                   Categorical("c", {"a", "b"})};

INSTANTIATE_TEST_SUITE_P(
    Table, CheckResumableTest,
    ::testing::Values(
        ResumeCase{"NoTrainingInput", kParams, NotTuning(false), Code::kInvalidArgument,
                   "Job old is not a hyperparameter tuning job, so there is no study to resume."},
        ResumeCase{"NotATuningJob", kParams, NotTuning(true), Code::kInvalidArgument,
                   "Job old is not a hyperparameter tuning job, so there is no study to resume."},
        ResumeCase{"RunningNotFinished", kParams, Previous(JobState::kRunning, kParams),
                   Code::kFailedPrecondition,
                   "Job old is RUNNING: a study can be resumed once its job has finished."},
        ResumeCase{"CancellingNotFinished", kParams, Previous(JobState::kCancelling, kParams),
                   Code::kFailedPrecondition,
                   "Job old is CANCELLING: a study can be resumed once its job has finished."},
        ResumeCase{"MissingParameter",
                   {Integer("n", 1, 10), Double("lr", 0.1, 1)},
                   Previous(JobState::kSucceeded, kParams),
                   Code::kInvalidArgument,
                   "Job old has no parameter lr: a resumed study must tune the same parameters."},
        ResumeCase{"TypeMismatch",
                   {Double("n", 1, 10), Categorical("c", {"a", "b"})},
                   Previous(JobState::kSucceeded, kParams),
                   Code::kInvalidArgument,
                   "Parameter n is INTEGER in job old but DOUBLE here."},
        ResumeCase{"ExtraParameterInPrevious",
                   {Integer("n", 1, 10)},
                   Previous(JobState::kSucceeded, kParams),
                   Code::kInvalidArgument,
                   "Job old tunes 2 parameters and this job 1: a resumed study must tune the "
                   "same ones."},
        ResumeCase{"SameParametersSucceeded", kParams, Previous(JobState::kSucceeded, kParams)},
        ResumeCase{"FailedJobResumable", kParams, Previous(JobState::kFailed, kParams)},
        ResumeCase{"CancelledJobResumable", kParams, Previous(JobState::kCancelled, kParams)},
        ResumeCase{"OtherOrderAndRangesResumable",
                   {Categorical("c", {"a", "b", "z"}), Integer("n", 0, 50)},
                   Previous(JobState::kSucceeded, kParams)}),
    [](const auto& tc) { return tc.param.name; });

// ---- SortTrialsForOutput ----

struct SortCase {
  std::string name;
  GoalType goal;
  std::vector<std::pair<std::string, std::optional<double>>> trials;  // id, final metric
  std::vector<std::string> want;                                      // ids in order
};

class SortTrialsTest : public ::testing::TestWithParam<SortCase> {};

TEST_P(SortTrialsTest, BestFirstThenUnmeasured) {
  std::vector<HyperparameterOutput> trials;
  for (const auto& [id, metric] : GetParam().trials) {
    trials.push_back(Trial(id, JobState::kSucceeded, metric));
  }
  SortTrialsForOutput(trials, GetParam().goal);
  std::vector<std::string> ids;
  ids.reserve(trials.size());
  for (const HyperparameterOutput& trial : trials) {
    ids.push_back(trial.trial_id);
  }
  EXPECT_EQ(ids, GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, SortTrialsTest,
    ::testing::Values(SortCase{"MaximizeLargestFirst",
                               GoalType::kMaximize,
                               {{"1", 0.2}, {"2", 0.9}, {"3", 0.5}},
                               {"2", "3", "1"}},
                      SortCase{"MinimizeSmallestFirst",
                               GoalType::kMinimize,
                               {{"1", 0.2}, {"2", 0.9}, {"3", 0.5}},
                               {"1", "3", "2"}},
                      SortCase{"UnspecifiedMaximizes",
                               GoalType::kUnspecified,
                               {{"1", 0.2}, {"2", 0.9}, {"3", -0.5}},
                               {"2", "1", "3"}},
                      SortCase{"UnmeasuredLastByNumber",
                               GoalType::kMinimize,
                               {{"3", std::nullopt}, {"1", 0.1}, {"2", std::nullopt}, {"4", 0.3}},
                               {"1", "4", "2", "3"}},
                      SortCase{"TiesByTrialNumberNumerically",
                               GoalType::kMaximize,
                               {{"10", 0.5}, {"9", 0.5}, {"2", 0.5}, {"11", 0.7}},
                               {"11", "2", "9", "10"}},
                      SortCase{"UnmeasuredNumericallyToo",
                               GoalType::kMaximize,
                               {{"10", std::nullopt}, {"9", std::nullopt}, {"1", std::nullopt}},
                               {"1", "9", "10"}}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::tuning
