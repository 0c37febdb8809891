#include <limits>

#include "validate/rule_case.h"

namespace trainyard::validate::testing {
namespace {

using model::Algorithm;
using model::Job;
using model::ParameterSpec;
using model::ParameterType;
using model::ScaleType;

// A valid study: one parameter of each type.
Job HpJob() {
  Job job = RuntimeJob();
  model::HyperparameterSpec spec;
  spec.goal = model::GoalType::kMaximize;
  spec.max_trials = 4;
  spec.max_parallel_trials = 2;
  spec.hyperparameter_metric_tag = "accuracy";
  ParameterSpec lr{.parameter_name = "learning_rate",
                   .type = ParameterType::kDouble,
                   .min_value = 0.0001,
                   .max_value = 0.1,
                   .scale_type = ScaleType::kUnitLogScale};
  ParameterSpec layers{.parameter_name = "num-layers",
                       .type = ParameterType::kInteger,
                       .min_value = 1,
                       .max_value = 8,
                       .scale_type = ScaleType::kUnitLinearScale};
  ParameterSpec optimizer{.parameter_name = "optimizer",
                          .type = ParameterType::kCategorical,
                          .categorical_values = {"adam", "sgd"}};
  ParameterSpec batch{.parameter_name = "batch_size",
                      .type = ParameterType::kDiscrete,
                      .discrete_values = {16, 32, 64}};
  spec.params = {lr, layers, optimizer, batch};
  In(job).hyperparameters = spec;
  return job;
}

model::HyperparameterSpec& Hp(Job& job) {
  return *In(job).hyperparameters;
}
ParameterSpec& Param(Job& job, int i) {
  return Hp(job).params.at(i);
}

const std::string kParams = "trainingInput.hyperparameters.params";

class HyperparameterRules : public RuleTest {};
TEST_P(HyperparameterRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

// docs/reference/ai-platform-training.md §2.4/§2.8 #14: the study.
INSTANTIATE_TEST_SUITE_P(
    Spec, HyperparameterRules,
    ::testing::Values(
        RuleCase{"Valid", HpJob, [](Job&) {}, ""},
        RuleCase{"NoParams", HpJob, [](Job& j) { Hp(j).params.clear(); }, kParams},
        RuleCase{"GridOverDiscreteParams", HpJob,
                 [](Job& j) {
                   Hp(j).algorithm = Algorithm::kGridSearch;
                   Hp(j).params.erase(Hp(j).params.begin());
                 },
                 ""},
        RuleCase{"GridOverDouble", HpJob, [](Job& j) { Hp(j).algorithm = Algorithm::kGridSearch; },
                 kParams + "[0].type"},
        RuleCase{"RandomSearch", HpJob, [](Job& j) { Hp(j).algorithm = Algorithm::kRandomSearch; },
                 ""},
        RuleCase{"PopulationBasedTraining", HpJob,
                 [](Job& j) { Hp(j).algorithm = Algorithm::kPopulationBasedTraining; },
                 "trainingInput.hyperparameters.algorithm"},
        RuleCase{"NegativeMaxTrials", HpJob, [](Job& j) { Hp(j).max_trials = -1; },
                 "trainingInput.hyperparameters.maxTrials"},
        RuleCase{"ParallelEqualsTrials", HpJob, [](Job& j) { Hp(j).max_parallel_trials = 4; }, ""},
        RuleCase{"ParallelOverTrials", HpJob, [](Job& j) { Hp(j).max_parallel_trials = 5; },
                 "trainingInput.hyperparameters.maxParallelTrials"},
        RuleCase{"ParallelOverDefaultTrials", HpJob, [](Job& j) { Hp(j).max_trials = 0; },
                 "trainingInput.hyperparameters.maxParallelTrials"},
        RuleCase{"NegativeMaxFailedTrials", HpJob, [](Job& j) { Hp(j).max_failed_trials = -2; },
                 "trainingInput.hyperparameters.maxFailedTrials"},
        RuleCase{"ResumeFromValidJob", HpJob,
                 [](Job& j) { Hp(j).resume_previous_job_id = "earlier_study_1"; }, ""},
        RuleCase{"ResumeFromInvalidJobId", HpJob,
                 [](Job& j) { Hp(j).resume_previous_job_id = "earlier-study"; },
                 "trainingInput.hyperparameters.resumePreviousJobId"}),
    CaseName);

// docs/reference/ai-platform-training.md §2.4: names and types.
INSTANTIATE_TEST_SUITE_P(
    Names, HyperparameterRules,
    ::testing::Values(RuleCase{"NoName", HpJob, [](Job& j) { Param(j, 0).parameter_name.clear(); },
                               kParams + "[0].parameterName"},
                      RuleCase{"NameWithSpace", HpJob,
                               [](Job& j) { Param(j, 0).parameter_name = "learning rate"; },
                               kParams + "[0].parameterName"},
                      RuleCase{"DuplicateName", HpJob,
                               [](Job& j) { Param(j, 3).parameter_name = "optimizer"; },
                               kParams + "[3].parameterName"},
                      RuleCase{"NoType", HpJob,
                               [](Job& j) { Param(j, 2).type = ParameterType::kUnspecified; },
                               kParams + "[2].type"}),
    CaseName);

// docs/reference/ai-platform-training.md §2.4: DOUBLE and INTEGER ranges.
INSTANTIATE_TEST_SUITE_P(
    Ranges, HyperparameterRules,
    ::testing::Values(
        RuleCase{"NoMin", HpJob, [](Job& j) { Param(j, 0).min_value.reset(); },
                 kParams + "[0].minValue"},
        RuleCase{"NoMax", HpJob, [](Job& j) { Param(j, 1).max_value.reset(); },
                 kParams + "[1].maxValue"},
        RuleCase{"MinEqualsMax", HpJob, [](Job& j) { Param(j, 1).max_value = 1; },
                 kParams + "[1].maxValue"},
        RuleCase{"MinOverMax", HpJob, [](Job& j) { Param(j, 0).min_value = 0.5; },
                 kParams + "[0].maxValue"},
        RuleCase{"NegativeLinearRange", HpJob,
                 [](Job& j) {
                   Param(j, 0).scale_type = ScaleType::kUnitLinearScale;
                   Param(j, 0).min_value = -1;
                 },
                 ""},
        RuleCase{"InfiniteMax", HpJob,
                 [](Job& j) { Param(j, 0).max_value = std::numeric_limits<double>::infinity(); },
                 kParams + "[0].maxValue"},
        RuleCase{"IntegerWithFraction", HpJob, [](Job& j) { Param(j, 1).min_value = 1.5; },
                 kParams + "[1].minValue"},
        RuleCase{"LogScaleFromZero", HpJob, [](Job& j) { Param(j, 0).min_value = 0; },
                 kParams + "[0].minValue"},
        RuleCase{"ReverseLogScaleNegative", HpJob,
                 [](Job& j) {
                   Param(j, 1).scale_type = ScaleType::kUnitReverseLogScale;
                   Param(j, 1).min_value = -4;
                 },
                 kParams + "[1].minValue"}),
    CaseName);

// docs/reference/ai-platform-training.md §2.4: CATEGORICAL and DISCRETE values.
INSTANTIATE_TEST_SUITE_P(
    Values, HyperparameterRules,
    ::testing::Values(
        RuleCase{"NoCategories", HpJob, [](Job& j) { Param(j, 2).categorical_values.clear(); },
                 kParams + "[2].categoricalValues"},
        RuleCase{"DuplicateCategory", HpJob,
                 [](Job& j) {
                   Param(j, 2).categorical_values = {"adam", "sgd", "adam"};
                 },
                 kParams + "[2].categoricalValues[2]"},
        RuleCase{"CategoricalWithRange", HpJob,
                 [](Job& j) {
                   Param(j, 2).min_value = 0;
                   Param(j, 2).max_value = 1;
                 },
                 kParams + "[2].minValue," + kParams + "[2].maxValue"},
        RuleCase{"CategoricalWithScale", HpJob,
                 [](Job& j) { Param(j, 2).scale_type = ScaleType::kUnitLinearScale; },
                 kParams + "[2].scaleType"},
        RuleCase{"NoDiscreteValues", HpJob, [](Job& j) { Param(j, 3).discrete_values.clear(); },
                 kParams + "[3].discreteValues"},
        RuleCase{"DiscreteNotIncreasing", HpJob,
                 [](Job& j) {
                   Param(j, 3).discrete_values = {16, 64, 32};
                 },
                 kParams + "[3].discreteValues[2]"},
        RuleCase{"DiscreteNotFinite", HpJob,
                 [](Job& j) {
                   Param(j, 3).discrete_values = {16, 32, std::numeric_limits<double>::infinity()};
                 },
                 kParams + "[3].discreteValues[2]"},
        RuleCase{"DiscreteRepeated", HpJob,
                 [](Job& j) {
                   Param(j, 3).discrete_values = {16, 16};
                 },
                 kParams + "[3].discreteValues[1]"},
        RuleCase{"ThousandDiscreteValues", HpJob,
                 [](Job& j) {
                   Param(j, 3).discrete_values.clear();
                   for (int i = 0; i < 1000; ++i) {
                     Param(j, 3).discrete_values.push_back(i);
                   }
                 },
                 ""},
        RuleCase{"ThousandAndOneDiscreteValues", HpJob,
                 [](Job& j) {
                   Param(j, 3).discrete_values.clear();
                   for (int i = 0; i < 1001; ++i) {
                     Param(j, 3).discrete_values.push_back(i);
                   }
                 },
                 kParams + "[3].discreteValues"},
        RuleCase{"DiscreteLogScaleFromZero", HpJob,
                 [](Job& j) {
                   Param(j, 3).scale_type = ScaleType::kUnitLogScale;
                   Param(j, 3).discrete_values = {0, 1, 2};
                 },
                 kParams + "[3].discreteValues[0]"}),
    CaseName);

}  // namespace
}  // namespace trainyard::validate::testing
