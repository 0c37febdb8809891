// The rules of a built-in algorithm's job (validate/builtin_algorithms.cc,
// docs/reference/ai-platform-training.md §12): one row per rule, with the field and the words of
// its violation; and the refusal of an algorithm this server does not run.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "validate/rule_case.h"
#include "validate/validate.h"

namespace trainyard::validate::testing {
namespace {

using model::Job;

constexpr char kXgboost[] = "gcr.io/cloud-ml-algos/boosted_trees:latest";

// gcloud's `--master-image-uri … --scale-tier BASIC -- --preprocess --training_data_path=…
// --objective=binary:logistic`.
Job XgboostJob() {
  Job job = ContainerJob();
  Master(job).image_uri = kXgboost;
  In(job).job_dir = "gs://my-bucket/out";
  In(job).args = {"--preprocess", "--training_data_path=gs://b/data.csv",
                  "--objective=binary:logistic"};
  return job;
}

struct AlgorithmCase {
  std::string name;
  std::function<void(Job&)> mutate;
  std::string field;    // "" when valid
  std::string message;  // a part of the violation's description
};

void PrintTo(const AlgorithmCase& c, std::ostream* os) {
  *os << c.name;
}

// `c` applied to `job`: valid when c.field is empty, else violations of c.field only, one of them
// saying c.message.
void ExpectRule(const AlgorithmCase& c, Job job) {
  c.mutate(job);
  const std::vector<FieldViolation> violations = Validate(job, catalog::Catalog::Builtin());
  if (c.field.empty()) {
    EXPECT_TRUE(violations.empty()) << Describe(violations);
    return;
  }
  ASSERT_FALSE(violations.empty());
  bool found = false;
  for (const FieldViolation& violation : violations) {
    EXPECT_EQ(violation.field, c.field) << Describe(violations);  // that field, and only it
    found = found || violation.description.find(c.message) != std::string::npos;
  }
  EXPECT_TRUE(found) << "no \"" << c.message << "\" in " << Describe(violations);
  EXPECT_EQ(ValidateJob(job, catalog::Catalog::Builtin()).code(), Code::kInvalidArgument);
}

class AlgorithmRules : public ::testing::TestWithParam<AlgorithmCase> {};

TEST_P(AlgorithmRules, NameTheArgumentInTheirWords) {
  ExpectRule(GetParam(), XgboostJob());
}

void Args(Job& job, std::vector<std::string> args) {
  In(job).args = std::move(args);
}

INSTANTIATE_TEST_SUITE_P(
    Xgboost, AlgorithmRules,
    ::testing::Values(
        AlgorithmCase{"Documented", [](Job&) {}, "", ""},
        AlgorithmCase{"WithoutTag",
                      [](Job& j) { Master(j).image_uri = "gcr.io/cloud-ml-algos/boosted_trees"; },
                      "", ""},
        AlgorithmCase{"SeparateValuesAndHyperparameters",
                      [](Job& j) {
                        Args(j, {"--training_data_path", "gs://b/d.csv", "--max_depth", "4",
                                 "--eta=0.1", "--preprocess=false", "--job-dir", "/x"});
                      },
                      "", ""},
        AlgorithmCase{"UnknownArgument",
                      [](Job& j) { In(j).args.push_back("--learning_rate=0.1"); },
                      "trainingInput.args[3]",
                      "Unknown argument --learning_rate for the built-in XGBoost algorithm"},
        AlgorithmCase{"NotAnArgument", [](Job& j) { In(j).args.insert(In(j).args.begin(), "x"); },
                      "trainingInput.args[0]", "\"x\" is not an argument"},
        AlgorithmCase{"IntegerExpected", [](Job& j) { In(j).args.push_back("--max_depth=4.5"); },
                      "trainingInput.args[3]", "--max_depth must be an integer; got \"4.5\""},
        AlgorithmCase{"NumberExpected", [](Job& j) { In(j).args.push_back("--eta=fast"); },
                      "trainingInput.args[3]", "--eta must be a number; got \"fast\""},
        AlgorithmCase{"AboveRange", [](Job& j) { In(j).args.push_back("--eta=1.5"); },
                      "trainingInput.args[3]", "--eta must be in the range [0, 1]; got 1.5"},
        AlgorithmCase{"BelowRange", [](Job& j) { In(j).args.push_back("--num_round=0"); },
                      "trainingInput.args[3]", "--num_round must be in the range [1, 100000]"},
        AlgorithmCase{"OpenBound", [](Job& j) { In(j).args.push_back("--subsample=0"); },
                      "trainingInput.args[3]", "--subsample must be in the range (0, 1]; got 0"},
        AlgorithmCase{"NotInEnum", [](Job& j) { In(j).args[2] = "--objective=binary:magic"; },
                      "trainingInput.args[2]", "--objective must be one of reg:linear,"},
        AlgorithmCase{"FlagWithWord", [](Job& j) { In(j).args[0] = "--preprocess=yes"; },
                      "trainingInput.args[0]", "--preprocess is a flag"},
        AlgorithmCase{"NotAGcsPath",
                      [](Job& j) { In(j).args[1] = "--training_data_path=/tmp/data.csv"; },
                      "trainingInput.args[1]", "must be a Cloud Storage path"},
        AlgorithmCase{"MissingValue", [](Job& j) { In(j).args.push_back("--eta"); },
                      "trainingInput.args[3]", "--eta needs a value"},
        AlgorithmCase{"GivenTwice", [](Job& j) { In(j).args.push_back("--objective=reg:linear"); },
                      "trainingInput.args[3]", "given twice (also at trainingInput.args[2])"},
        AlgorithmCase{"SplitsOverLimit",
                      [](Job& j) {
                        In(j).args.push_back("--validation_split=0.3");
                        In(j).args.push_back("--test_split=0.2");
                      },
                      "trainingInput.args[4]",
                      "validation_split + test_split must be at most 0.40; got 0.3 + 0.2 = 0.50"},
        AlgorithmCase{"SplitsAtLimit",
                      [](Job& j) {
                        In(j).args.push_back("--validation_split=0.2");
                        In(j).args.push_back("--test_split=0.2");
                      },
                      "", ""},
        AlgorithmCase{"TestSplitOverLimitWithDefault",
                      [](Job& j) { In(j).args.push_back("--test_split=0.25"); },
                      "trainingInput.args[3]", "got 0.2 + 0.25 = 0.45"},
        AlgorithmCase{"MissingTrainingData",
                      [](Job& j) { In(j).args.erase(In(j).args.begin() + 1); },
                      "trainingInput.args",
                      "--training_data_path is required by the built-in XGBoost algorithm"},
        AlgorithmCase{"ContainerCommand", [](Job& j) { Master(j).container_command = {"/bin/sh"}; },
                      "trainingInput.masterConfig.containerCommand",
                      "a built-in algorithm runs its own program"},
        AlgorithmCase{"Workers",
                      [](Job& j) {
                        In(j).scale_tier = model::ScaleTier::kCustom;
                        In(j).master_type = "n1-standard-4";
                        In(j).worker_type = "n1-standard-4";
                        In(j).worker_count = 2;
                      },
                      "trainingInput.workerCount",
                      "runs on 1 replica (the master); this job asks for 3"},
        AlgorithmCase{"TunedArgument",
                      [](Job& j) {
                        model::HyperparameterSpec& spec = In(j).hyperparameters.emplace();
                        spec.goal = model::GoalType::kMaximize;
                        spec.max_trials = 2;
                        spec.hyperparameter_metric_tag = "auc";
                        spec.params.push_back({.parameter_name = "max_depth",
                                               .type = model::ParameterType::kInteger,
                                               .min_value = 2,
                                               .max_value = 8});
                        spec.params.push_back({.parameter_name = "training_data_path",
                                               .type = model::ParameterType::kCategorical,
                                               .categorical_values = {"gs://b/a.csv"}});
                      },
                      "trainingInput.hyperparameters.params[1].parameterName",
                      "training_data_path is not a tunable argument of the built-in XGBoost"}),
    [](const ::testing::TestParamInfo<AlgorithmCase>& param) { return param.param.name; });

// The linear learner's documented submission: `--master-image-uri
// gcr.io/cloud-ml-algos/linear_learner_cpu:latest -- --preprocess --model_type=classification
// --training_data_path=…`. Its arguments are its own table entry's, checked by the same rules.
Job LinearLearnerJob() {
  Job job = XgboostJob();
  Master(job).image_uri = "gcr.io/cloud-ml-algos/linear_learner_cpu:latest";
  In(job).args = {"--preprocess", "--training_data_path=gs://b/data.csv",
                  "--model_type=classification"};
  return job;
}

class LinearLearnerRules : public ::testing::TestWithParam<AlgorithmCase> {};

TEST_P(LinearLearnerRules, NameTheArgumentInTheirWords) {
  ExpectRule(GetParam(), LinearLearnerJob());
}

INSTANTIATE_TEST_SUITE_P(
    LinearLearner, LinearLearnerRules,
    ::testing::Values(
        AlgorithmCase{"Documented", [](Job&) {}, "", ""},
        AlgorithmCase{"GpuImage",
                      [](Job& j) {
                        Master(j).image_uri = "gcr.io/cloud-ml-algos/linear_learner_gpu:latest";
                        In(j).args.push_back("--optimizer_type=adam");
                        In(j).args.push_back("--learning_rate=0.01");
                        In(j).args.push_back("--max_steps=500");
                        In(j).args.push_back("--l1_regularization_strength=0.1");
                      },
                      "", ""},
        AlgorithmCase{"ModelTypeRequired", [](Job& j) { In(j).args.pop_back(); },
                      "trainingInput.args",
                      "--model_type is required by the built-in linear learner algorithm"},
        AlgorithmCase{"ModelTypeInEnum", [](Job& j) { In(j).args[2] = "--model_type=ranking"; },
                      "trainingInput.args[2]",
                      "--model_type must be one of classification, regression; got \"ranking\""},
        AlgorithmCase{"OptimizerInEnum",
                      [](Job& j) { In(j).args.push_back("--optimizer_type=lbfgs"); },
                      "trainingInput.args[3]", "--optimizer_type must be one of ftrl, adam, sgd"},
        AlgorithmCase{"LearningRatePositive",
                      [](Job& j) { In(j).args.push_back("--learning_rate=0"); },
                      "trainingInput.args[3]", "--learning_rate must be in the range (0, inf)"},
        AlgorithmCase{"StepsAnInteger", [](Job& j) { In(j).args.push_back("--max_steps=1e3"); },
                      "trainingInput.args[3]", "--max_steps must be an integer"},
        AlgorithmCase{"RegularizationNotNegative",
                      [](Job& j) { In(j).args.push_back("--l2_regularization_strength=-1"); },
                      "trainingInput.args[3]", "--l2_regularization_strength must be in the range"},
        AlgorithmCase{"BetaOpen", [](Job& j) { In(j).args.push_back("--beta_1=1"); },
                      "trainingInput.args[3]", "--beta_1 must be in the range (0, 1); got 1"},
        AlgorithmCase{"XgboostArgument", [](Job& j) { In(j).args.push_back("--max_depth=3"); },
                      "trainingInput.args[3]",
                      "Unknown argument --max_depth for the built-in linear learner algorithm"},
        AlgorithmCase{"SplitsOverLimit", [](Job& j) { In(j).args.push_back("--test_split=0.25"); },
                      "trainingInput.args[3]",
                      "validation_split + test_split must be at most 0.40"},
        AlgorithmCase{"TunedLearningRate",
                      [](Job& j) {
                        model::HyperparameterSpec& spec = In(j).hyperparameters.emplace();
                        spec.goal = model::GoalType::kMaximize;
                        spec.max_trials = 2;
                        spec.hyperparameter_metric_tag = "accuracy";
                        spec.params.push_back({.parameter_name = "learning_rate",
                                               .type = model::ParameterType::kDouble,
                                               .min_value = 0.001,
                                               .max_value = 0.1});
                        spec.params.push_back({.parameter_name = "model_type",
                                               .type = model::ParameterType::kCategorical,
                                               .categorical_values = {"regression"}});
                      },
                      "trainingInput.hyperparameters.params[1].parameterName",
                      "model_type is not a tunable argument of the built-in linear learner"}),
    [](const ::testing::TestParamInfo<AlgorithmCase>& param) { return param.param.name; });

// Wide and deep: the linear learner's arguments, and its own for the deep part.
Job WideDeepJob() {
  Job job = LinearLearnerJob();
  Master(job).image_uri = "gcr.io/cloud-ml-algos/wide_deep_learner_cpu:latest";
  return job;
}

class WideDeepRules : public ::testing::TestWithParam<AlgorithmCase> {};

TEST_P(WideDeepRules, NameTheArgumentInTheirWords) {
  ExpectRule(GetParam(), WideDeepJob());
}

INSTANTIATE_TEST_SUITE_P(
    WideDeep, WideDeepRules,
    ::testing::Values(
        AlgorithmCase{"Documented", [](Job&) {}, "", ""},
        AlgorithmCase{"DeepArguments",
                      [](Job& j) {
                        Master(j).image_uri = "gcr.io/cloud-ml-algos/wide_deep_learner_gpu";
                        In(j).args.push_back("--hidden_units=64,32,8");
                        In(j).args.push_back("--embed_categories");
                        In(j).args.push_back("--use_wide=true");
                        In(j).args.push_back("--dnn_optimizer_type=adam");
                        In(j).args.push_back("--dnn_dropout=0.5");
                        In(j).args.push_back("--learning_rate=0.1");
                      },
                      "", ""},
        AlgorithmCase{"HiddenUnitsNotIntegers",
                      [](Job& j) { In(j).args.push_back("--hidden_units=64,x"); },
                      "trainingInput.args[3]",
                      "--hidden_units must be comma-separated integers in the range [1, 100000], "
                      "such as \"30,30,30\"; got \"64,x\""},
        AlgorithmCase{"HiddenUnitsZero",
                      [](Job& j) { In(j).args.push_back("--hidden_units=64,0"); },
                      "trainingInput.args[3]", "--hidden_units must be comma-separated integers"},
        AlgorithmCase{"HiddenUnitsTrailingComma",
                      [](Job& j) { In(j).args.push_back("--hidden_units=64,"); },
                      "trainingInput.args[3]", "--hidden_units must be comma-separated integers"},
        AlgorithmCase{"DnnOptimizerInEnum",
                      [](Job& j) { In(j).args.push_back("--dnn_optimizer_type=lbfgs"); },
                      "trainingInput.args[3]",
                      "--dnn_optimizer_type must be one of adagrad, adam, ftrl, rmsprop, sgd"},
        AlgorithmCase{"DropoutBelowOne", [](Job& j) { In(j).args.push_back("--dnn_dropout=1"); },
                      "trainingInput.args[3]", "--dnn_dropout must be in the range [0, 1); got 1"},
        AlgorithmCase{"EmbedIsAFlag",
                      [](Job& j) { In(j).args.push_back("--embed_categories=yes"); },
                      "trainingInput.args[3]", "--embed_categories is a flag"},
        AlgorithmCase{"TunedHiddenUnits",
                      [](Job& j) {
                        model::HyperparameterSpec& spec = In(j).hyperparameters.emplace();
                        spec.goal = model::GoalType::kMaximize;
                        spec.max_trials = 2;
                        spec.hyperparameter_metric_tag = "auc";
                        spec.params.push_back({.parameter_name = "dnn_learning_rate",
                                               .type = model::ParameterType::kDouble,
                                               .min_value = 0.001,
                                               .max_value = 0.1});
                        spec.params.push_back({.parameter_name = "hidden_units",
                                               .type = model::ParameterType::kCategorical,
                                               .categorical_values = {"8", "16,8"}});
                      },
                      "trainingInput.hyperparameters.params[1].parameterName",
                      "hidden_units is not a tunable argument of the built-in wide and deep"}),
    [](const ::testing::TestParamInfo<AlgorithmCase>& param) { return param.param.name; });

// The distributed XGBoost algorithm: `--master-image-uri gcr.io/cloud-ml-algos/xgboost_dist
// --scale-tier CUSTOM --master-machine-type … --worker-count 2 --
// --training_data_path=gs://b/*.csv`.
Job DistributedXgboostJob() {
  Job job = XgboostJob();
  Master(job).image_uri = "gcr.io/cloud-ml-algos/xgboost_dist:latest";
  In(job).scale_tier = model::ScaleTier::kCustom;
  In(job).master_type = "n1-standard-4";
  In(job).worker_type = "n1-standard-4";
  In(job).worker_count = 2;
  In(job).args = {"--training_data_path=gs://b/train-*.csv", "--validation_data_path=gs://b/v.csv",
                  "--objective=binary:logistic"};
  return job;
}

class DistributedXgboostRules : public ::testing::TestWithParam<AlgorithmCase> {};

TEST_P(DistributedXgboostRules, NameTheArgumentInTheirWords) {
  ExpectRule(GetParam(), DistributedXgboostJob());
}

INSTANTIATE_TEST_SUITE_P(
    DistributedXgboost, DistributedXgboostRules,
    ::testing::Values(
        AlgorithmCase{"Documented", [](Job&) {}, "", ""},
        AlgorithmCase{"ItsOwnArguments",
                      [](Job& j) {
                        In(j).args.push_back("--model_saving_period=5");
                        In(j).args.push_back("--eval_log_period=1");
                        In(j).args.push_back("--silent=1");
                        In(j).args.push_back("--tree_method=hist");
                      },
                      "", ""},
        AlgorithmCase{"SingleReplica", [](Job& j) { In(j).worker_count = 0; }, "", ""},
        AlgorithmCase{"NoPreprocessing", [](Job& j) { In(j).args.push_back("--preprocess"); },
                      "trainingInput.args[3]",
                      "Unknown argument --preprocess for the built-in distributed XGBoost "
                      "algorithm"},
        AlgorithmCase{"NoSplits", [](Job& j) { In(j).args.push_back("--validation_split=0.2"); },
                      "trainingInput.args[3]", "Unknown argument --validation_split"},
        AlgorithmCase{"SilentIsZeroOrOne", [](Job& j) { In(j).args.push_back("--silent=2"); },
                      "trainingInput.args[3]", "--silent must be in the range [0, 1]; got 2"},
        // Google's distributed table: 0 or less saves no intermediate model, logs no evaluation.
        AlgorithmCase{"NoIntermediateModels",
                      [](Job& j) { In(j).args.push_back("--model_saving_period=0"); }, "", ""},
        AlgorithmCase{"NoEvaluationLogs",
                      [](Job& j) { In(j).args.push_back("--eval_log_period=-1"); }, "", ""},
        AlgorithmCase{"SavingPeriodIsAnInteger",
                      [](Job& j) { In(j).args.push_back("--model_saving_period=1.5"); },
                      "trainingInput.args[3]", "--model_saving_period must be an integer"},
        AlgorithmCase{"LogPeriodIsAnInteger",
                      [](Job& j) { In(j).args.push_back("--eval_log_period=often"); },
                      "trainingInput.args[3]", "--eval_log_period must be an integer"},
        AlgorithmCase{"SilentIsAnInteger", [](Job& j) { In(j).args.push_back("--silent=true"); },
                      "trainingInput.args[3]", "--silent must be an integer"},
        AlgorithmCase{"ParameterServers",
                      [](Job& j) {
                        In(j).parameter_server_type = "n1-standard-4";
                        In(j).parameter_server_count = 1;
                      },
                      "trainingInput.parameterServerCount",
                      "the built-in distributed XGBoost algorithm runs on its master and worker "
                      "replicas only: do not specify any parameter servers"},
        AlgorithmCase{"ScaleTierWithParameterServers",
                      [](Job& j) {
                        In(j).scale_tier = model::ScaleTier::kStandard1;
                        In(j).master_type.clear();
                        In(j).worker_type.clear();
                        In(j).worker_count = 0;
                      },
                      "trainingInput.scaleTier", "do not specify any parameter servers"},
        AlgorithmCase{"MissingTrainingData", [](Job& j) { In(j).args.erase(In(j).args.begin()); },
                      "trainingInput.args",
                      "--training_data_path is required by the built-in distributed XGBoost"}),
    [](const ::testing::TestParamInfo<AlgorithmCase>& param) { return param.param.name; });

TEST(AlgorithmAvailability, AnAlgorithmThisServerDoesNotRunIsAFailedPrecondition) {
  for (const char* image :
       {"gcr.io/cloud-ml-algos/tab_net:latest", "gcr.io/cloud-ml-algos/image_classification",
        "gcr.io/cloud-ml-algos/image_object_detection:latest"}) {
    Job job = ContainerJob();
    Master(job).image_uri = image;
    In(job).args = {"--anything=1"};  // an unavailable algorithm's arguments are not read
    const Status status = ValidateJob(job, catalog::Catalog::Builtin());
    EXPECT_EQ(status.code(), Code::kFailedPrecondition) << image;
    EXPECT_NE(status.message().find(std::string("built-in algorithm ") + image), std::string::npos)
        << status.message();
    EXPECT_NE(status.message().find("is not available on this server"), std::string::npos);
  }
}

TEST(AlgorithmAvailability, OtherImagesAreOrdinaryContainers) {
  Job job = ContainerJob();
  Master(job).image_uri = "gcr.io/cloud-ml-algos-fork/boosted_trees:latest";
  In(job).args = {"not", "flags"};
  EXPECT_TRUE(ValidateJob(job, catalog::Catalog::Builtin()).ok());
}

}  // namespace
}  // namespace trainyard::validate::testing
