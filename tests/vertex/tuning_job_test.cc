// Vertex AI HyperparameterTuningJobs: the study spec onto the engine's study, and the trials back.
#include "vertex/tuning_job.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "validate/validate.h"

namespace trainyard::vertex {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// What gcloud 528 sends for `hp-tuning-jobs create --config hp.yaml --max-trial-count 4
// --parallel-trial-count 2` (recorded), with a discrete and a categorical parameter added.
constexpr std::string_view kStudy = R"({
  "displayName": "h1", "maxTrialCount": 4, "parallelTrialCount": 2,
  "studySpec": {
    "algorithm": "RANDOM_SEARCH",
    "metrics": [{"goal": "MAXIMIZE", "metricId": "accuracy"}],
    "parameters": [
      {"doubleValueSpec": {"maxValue": 0.1, "minValue": 0.001}, "parameterId": "lr",
       "scaleType": "UNIT_LOG_SCALE"},
      {"integerValueSpec": {"maxValue": "4", "minValue": "1"}, "parameterId": "layers"},
      {"discreteValueSpec": {"values": [16, 32, 64]}, "parameterId": "batch"},
      {"categoricalValueSpec": {"values": ["adam", "sgd"]}, "parameterId": "opt"}
    ],
    "measurementSelectionType": "BEST_MEASUREMENT",
    "medianAutomatedStoppingSpec": {}
  },
  "trialJobSpec": {"workerPoolSpecs": [{"containerSpec": {"imageUri": "localhost/img:1"},
    "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1"}]}
})";

MappingContext TuningContext() {
  return MappingContext{.job_id = "42",
                        .kind = "HyperparameterTuningJob",
                        .location = "us-central1",
                        .document = R"({"maxTrialCount":4})",
                        .host_python_prefixes = DefaultHostPythonPrefixes(),
                        .catalog = nullptr};
}

TuningJob DecodedStudy(std::string_view body) {
  Result<TuningJob> job = DecodeTuningJob(body);
  EXPECT_TRUE(job.ok()) << job.status().ToString();
  return job.ok() ? *job : TuningJob{};
}

TEST(DecodeTuningJobTest, ReadsTheStudy) {
  const TuningJob job = DecodedStudy(kStudy);
  EXPECT_EQ(job.max_trial_count, 4);
  EXPECT_EQ(job.parallel_trial_count, 2);
  const StudySpec& study = job.study_spec;
  EXPECT_EQ(study.goal, model::GoalType::kMaximize);
  EXPECT_EQ(study.metric_id, "accuracy");
  EXPECT_EQ(study.algorithm, model::Algorithm::kRandomSearch);
  EXPECT_TRUE(study.best_measurement);
  EXPECT_TRUE(study.early_stopping);
  ASSERT_EQ(study.parameters.size(), 4U);
  EXPECT_EQ(study.parameters[0].type, model::ParameterType::kDouble);
  EXPECT_EQ(study.parameters[0].scale_type, model::ScaleType::kUnitLogScale);
  EXPECT_EQ(study.parameters[1].type, model::ParameterType::kInteger);
  EXPECT_EQ(study.parameters[1].max_value, 4);
  EXPECT_THAT(study.parameters[2].discrete_values, ElementsAre(16, 32, 64));
  EXPECT_THAT(study.parameters[3].categorical_values, ElementsAre("adam", "sgd"));
}

TEST(DecodeTuningJobTest, RefusesWhatItCannotHonourNamingTheField) {
  const struct {
    std::string_view study;
    std::string field;
  } cases[] = {
      {R"({"metrics": [{"metricId": "a", "goal": "MAXIMIZE"},
                       {"metricId": "b", "goal": "MINIMIZE", "safetyConfig": {}}]})",
       "studySpec.metrics[1].safetyConfig"},
      {R"({"metrics": [{"metricId": "a", "goal": "BIGGER"}]})", "studySpec.metrics[0].goal"},
      {R"({"parameters": [{"parameterId": "x"}]})", "studySpec.parameters[0]"},
      {R"({"parameters": [{"parameterId": "x", "doubleValueSpec": {"minValue": 0, "maxValue": 1},
                           "integerValueSpec": {"minValue": 0, "maxValue": 1}}]})",
       "studySpec.parameters[0]"},
      {R"({"parameters": [{"parameterId": "x", "doubleValueSpec": {"minValue": 0, "maxValue": 1},
                           "scaleType": "UNIT_SQUARE"}]})",
       "studySpec.parameters[0].scaleType"},
      {R"({"parameters": [{"parameterId": "x", "categoricalValueSpec": {"values": ["a"]},
                           "conditionalParameterSpecs": [{}]}]})",
       "studySpec.parameters[0].conditionalParameterSpecs[0]"},
      {R"({"parameters": [{"parameterId": "x", "categoricalValueSpec": {"values": ["a"]},
                           "conditionalParameterSpecs": [{"parentIntValues": {"values": ["1.5"]},
                             "parameterSpec": {"parameterId": "y",
                               "doubleValueSpec": {"minValue": 0, "maxValue": 1}}}]}]})",
       "studySpec.parameters[0].conditionalParameterSpecs[0].parentIntValues.values"},
      {R"({"parameters": [{"parameterId": "x", "categoricalValueSpec": {"values": ["a"]},
                           "conditionalParameterSpecs": [
                             {"parentCategoricalValues": {"values": ["a"]}}]}]})",
       "studySpec.parameters[0].conditionalParameterSpecs[0].parameterSpec"},
      {R"({"algorithm": "HILL_CLIMB"})", "studySpec.algorithm"},
      {R"({"convexAutomatedStoppingSpec": {}})", "studySpec.convexAutomatedStoppingSpec"},
      {R"({"measurementSelectionType": "MEDIAN"})", "studySpec.measurementSelectionType"},
  };
  for (const auto& c : cases) {
    Result<TuningJob> job =
        DecodeTuningJob(std::string(R"({"studySpec": )") + std::string(c.study) + "}");
    ASSERT_FALSE(job.ok()) << c.study;
    ASSERT_FALSE(job.status().violations().empty()) << c.study;
    EXPECT_EQ(job.status().violations()[0].field, c.field) << job.status().ToString();
  }
}

// A study with conditional parameters (aiplatform v1 ConditionalParameterSpec): the optimizer
// decides whether momentum exists; the layer count whether width does, and width dropout's.
constexpr std::string_view kConditionalStudy = R"({
  "displayName": "c1", "maxTrialCount": 8, "parallelTrialCount": 2,
  "studySpec": {
    "metrics": [{"goal": "MINIMIZE", "metricId": "loss"}],
    "parameters": [
      {"parameterId": "optimizer", "categoricalValueSpec": {"values": ["sgd", "adam"]},
       "conditionalParameterSpecs": [
         {"parentCategoricalValues": {"values": ["sgd"]},
          "parameterSpec": {"parameterId": "momentum",
                            "doubleValueSpec": {"minValue": 0.5, "maxValue": 0.99}}}]},
      {"parameterId": "layers", "integerValueSpec": {"minValue": "1", "maxValue": "4"},
       "conditionalParameterSpecs": [
         {"parentIntValues": {"values": ["2", 3]},
          "parameterSpec": {"parameterId": "width",
                            "discreteValueSpec": {"values": [32, 64, 128]},
                            "conditionalParameterSpecs": [
                              {"parentDiscreteValues": {"values": [64]},
                               "parameterSpec": {"parameterId": "dropout",
                                 "doubleValueSpec": {"minValue": 0, "maxValue": 0.5}}}]}}]}
    ]
  },
  "trialJobSpec": {"workerPoolSpecs": [{"containerSpec": {"imageUri": "localhost/img:1"},
    "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1"}]}
})";

TEST(DecodeTuningJobTest, FlattensConditionalParametersAfterTheirParent) {
  const TuningJob job = DecodedStudy(kConditionalStudy);
  const StudySpec& study = job.study_spec;
  std::vector<std::string> names;
  for (const model::ParameterSpec& param : study.parameters) {
    names.push_back(param.parameter_name);
  }
  EXPECT_THAT(names, ElementsAre("optimizer", "momentum", "layers", "width", "dropout"));
  EXPECT_THAT(study.parameter_paths,
              ElementsAre("studySpec.parameters[0]",
                          "studySpec.parameters[0].conditionalParameterSpecs[0].parameterSpec",
                          "studySpec.parameters[1]",
                          "studySpec.parameters[1].conditionalParameterSpecs[0].parameterSpec",
                          "studySpec.parameters[1].conditionalParameterSpecs[0].parameterSpec."
                          "conditionalParameterSpecs[0].parameterSpec"));
  EXPECT_THAT(study.conditions, ElementsAre(model::ParameterCondition{.parameter = "momentum",
                                                                      .parent = "optimizer",
                                                                      .parent_values = {},
                                                                      .parent_categories = {"sgd"}},
                                            model::ParameterCondition{.parameter = "width",
                                                                      .parent = "layers",
                                                                      .parent_values = {2, 3},
                                                                      .parent_categories = {}},
                                            model::ParameterCondition{.parameter = "dropout",
                                                                      .parent = "width",
                                                                      .parent_values = {64},
                                                                      .parent_categories = {}}));
  EXPECT_THAT(ValidateTuningJob(job, TuningContext()), IsEmpty());
  const model::Job mapped = ToJob(job, TuningContext());
  EXPECT_EQ(mapped.training_input->hyperparameters->params.size(), 5U);
  EXPECT_EQ(mapped.extras->parameter_conditions, study.conditions);
}

TEST(DecodeTuningJobTest, ConditionalParametersNestAtMost16Deep) {
  auto nested = [](int depth) {
    std::string spec = R"({"parameterId": "p0", "discreteValueSpec": {"values": [1]}})";
    for (int i = 1; i <= depth; ++i) {
      spec = R"({"parameterId": "p)" + std::to_string(i) +
             R"(", "discreteValueSpec": {"values": [1]}, "conditionalParameterSpecs": [
                 {"parentDiscreteValues": {"values": [1]}, "parameterSpec": )" +
             spec + "}]}";
    }
    return std::string(R"({"studySpec": {"parameters": [)") + spec + "]}}";
  };
  const Result<TuningJob> deep = DecodeTuningJob(nested(16));
  ASSERT_TRUE(deep.ok()) << deep.status().ToString();
  EXPECT_EQ(deep->study_spec.parameters.size(), 17U);
  const Result<TuningJob> deeper = DecodeTuningJob(nested(17));
  ASSERT_FALSE(deeper.ok());
  EXPECT_NE(deeper.status().ToString().find("nest at most 16 deep"), std::string::npos)
      << deeper.status().ToString();
}

TEST(ValidateTuningJobTest, ABadConditionIsReportedOnItsEntry) {
  std::string body(kConditionalStudy);
  body.replace(body.find(R"("values": ["2", 3])"), 18, R"("values": ["2", 7])");
  const std::vector<FieldViolation> violations =
      ValidateTuningJob(DecodedStudy(body), TuningContext());
  ASSERT_EQ(violations.size(), 1U);
  EXPECT_EQ(violations[0].field, "studySpec.parameters[1].conditionalParameterSpecs[0]");
  EXPECT_EQ(violations[0].description, "7 is not a value of parameter layers");
}

TEST(MlFieldToVertexTest, AStudysParameterIsFoundThroughItsPath) {
  const std::vector<std::string> paths = DecodedStudy(kConditionalStudy).study_spec.parameter_paths;
  EXPECT_EQ(MlFieldToVertex("trainingInput.hyperparameters.params[3].discreteValues",
                            "trialJobSpec", paths),
            "studySpec.parameters[1].conditionalParameterSpecs[0].parameterSpec");
  EXPECT_EQ(MlFieldToVertex("trainingInput.hyperparameters.params[1]", "trialJobSpec"),
            "studySpec.parameters[1]");
}

TEST(ValidateTuningJobTest, CountsMetricAndParametersAreRequired) {
  const std::vector<FieldViolation> violations =
      ValidateTuningJob(DecodedStudy(R"({"displayName": "h", "trialJobSpec": {"workerPoolSpecs": [
          {"containerSpec": {"imageUri": "i"}, "machineSpec": {"machineType": "n1-standard-4"},
           "replicaCount": 1}]}})"),
                        TuningContext());
  std::vector<std::string> fields;
  for (const FieldViolation& violation : violations) {
    fields.push_back(violation.field);
  }
  EXPECT_THAT(fields, ElementsAre("maxTrialCount", "parallelTrialCount", "studySpec.metrics",
                                  "studySpec.parameters"));
  EXPECT_THAT(ValidateTuningJob(DecodedStudy(kStudy), TuningContext()), IsEmpty());
}

// studySpec.metrics of a multi-objective study: the first is the engine's goal and tag, the rest
// its extras; each needs an id of its own and a goal.
TEST(ValidateTuningJobTest, EveryMetricNeedsAnIdOfItsOwnAndAGoal) {
  const struct {
    std::string_view metrics;
    std::vector<std::string> fields;  // the violations' fields; none: valid
    std::vector<model::StudyMetric> extra;
  } cases[] = {
      {R"([{"metricId": "acc", "goal": "MAXIMIZE"}])", {}, {}},
      {R"([{"metricId": "acc", "goal": "MAXIMIZE"}, {"metricId": "loss", "goal": "MINIMIZE"}])",
       {},
       {{.id = "loss", .goal = model::GoalType::kMinimize}}},
      {R"([{"metricId": "acc", "goal": "MAXIMIZE"}, {"metricId": "loss", "goal": "MINIMIZE"},
           {"metricId": "ms", "goal": "MINIMIZE"}])",
       {},
       {{.id = "loss", .goal = model::GoalType::kMinimize},
        {.id = "ms", .goal = model::GoalType::kMinimize}}},
      {R"([{"metricId": "acc", "goal": "MAXIMIZE"}, {"metricId": "acc", "goal": "MINIMIZE"}])",
       {"studySpec.metrics[1].metricId"},
       {{.id = "acc", .goal = model::GoalType::kMinimize}}},
      {R"([{"metricId": "acc", "goal": "MAXIMIZE"}, {"goal": "MINIMIZE"}])",
       {"studySpec.metrics[1].metricId"},
       {{.id = "", .goal = model::GoalType::kMinimize}}},
      {R"([{"goal": "MAXIMIZE"}, {"metricId": "loss", "goal": "MINIMIZE"}])",
       {"studySpec.metrics[0].metricId"},
       {{.id = "loss", .goal = model::GoalType::kMinimize}}},
      {R"([{"metricId": "acc", "goal": "MAXIMIZE"}, {"metricId": "loss"},
           {"metricId": "loss", "goal": "MINIMIZE"}])",
       {"studySpec.metrics[1].goal", "studySpec.metrics[2].metricId"},
       {{.id = "loss", .goal = model::GoalType::kUnspecified},
        {.id = "loss", .goal = model::GoalType::kMinimize}}},
      {R"([])", {"studySpec.metrics"}, {}},
  };
  for (const auto& c : cases) {
    nlohmann::json body = nlohmann::json::parse(kStudy);
    body["studySpec"]["metrics"] = nlohmann::json::parse(c.metrics);
    const TuningJob job = DecodedStudy(body.dump());
    EXPECT_EQ(job.study_spec.extra_metrics, c.extra) << c.metrics;
    std::vector<std::string> fields;
    for (const FieldViolation& violation : ValidateTuningJob(job, TuningContext())) {
      fields.push_back(violation.field);
    }
    EXPECT_EQ(fields, c.fields) << c.metrics;
  }
}

TEST(ToJobTest, ExtraMetricsAreKeptInTheExtras) {
  nlohmann::json body = nlohmann::json::parse(kStudy);
  body["studySpec"]["metrics"] = nlohmann::json::parse(
      R"([{"metricId": "acc", "goal": "MAXIMIZE"}, {"metricId": "loss", "goal": "MINIMIZE"}])");
  const model::Job job = ToJob(DecodedStudy(body.dump()), TuningContext());
  EXPECT_EQ(job.training_input->hyperparameters->hyperparameter_metric_tag, "acc");
  EXPECT_EQ(job.training_input->hyperparameters->goal, model::GoalType::kMaximize);
  EXPECT_THAT(job.extras->extra_metrics,
              ElementsAre(model::StudyMetric{.id = "loss", .goal = model::GoalType::kMinimize}));
  EXPECT_THAT(validate::Validate(job, catalog::Catalog::Builtin()), IsEmpty());
}

TEST(ToJobTest, TheStudyIsTheEnginesHyperparameterSpec) {
  const model::Job job = ToJob(DecodedStudy(kStudy), TuningContext());
  const model::HyperparameterSpec& spec = *job.training_input->hyperparameters;
  EXPECT_EQ(spec.goal, model::GoalType::kMaximize);
  EXPECT_EQ(spec.hyperparameter_metric_tag, "accuracy");
  EXPECT_EQ(spec.max_trials, 4);
  EXPECT_EQ(spec.max_parallel_trials, 2);
  EXPECT_EQ(spec.algorithm, model::Algorithm::kRandomSearch);
  EXPECT_TRUE(spec.enable_trial_early_stopping);
  EXPECT_EQ(spec.params[0].parameter_name, "lr");
  EXPECT_TRUE(job.extras->best_measurement);
  EXPECT_EQ(job.extras->vertex->kind, "HyperparameterTuningJob");
  EXPECT_THAT(validate::Validate(job, catalog::Catalog::Builtin()), IsEmpty());
}

TEST(EncodeTuningJobTest, TrialsAreTypedByTheStudy) {
  model::Job job = ToJob(DecodedStudy(kStudy), TuningContext());
  job.state = model::JobState::kRunning;
  job.create_time = ParseTimestamp("2026-11-26T10:00:00Z");
  model::HyperparameterOutput done;
  done.trial_id = "1";
  done.state = model::JobState::kSucceeded;
  done.hyperparameters = {{"lr", "0.01"}, {"layers", "3"}, {"opt", "adam"}, {"batch", "32"}};
  done.final_metric = model::HyperparameterMetric{.training_step = 7, .objective_value = 0.9};
  model::HyperparameterOutput running;
  running.trial_id = "2";
  running.state = model::JobState::kRunning;
  model::HyperparameterOutput failed;
  failed.trial_id = "3";
  failed.state = model::JobState::kFailed;
  job.training_output = model::TrainingOutput{.trials = {done, running, failed}};
  const nlohmann::ordered_json out = EncodeTuningJob("p", job);
  EXPECT_EQ(out["name"], "projects/p/locations/us-central1/hyperparameterTuningJobs/42");
  EXPECT_EQ(out["state"], "JOB_STATE_RUNNING");
  EXPECT_EQ(out["maxTrialCount"], 4);
  ASSERT_EQ(out["trials"].size(), 3U);
  const nlohmann::ordered_json& first = out["trials"][0];
  EXPECT_EQ(first["id"], "1");
  EXPECT_EQ(first["state"], "SUCCEEDED");
  EXPECT_EQ(first["finalMeasurement"]["stepCount"], "7");
  EXPECT_EQ(first["finalMeasurement"]["metrics"][0]["metricId"], "accuracy");
  EXPECT_EQ(first["finalMeasurement"]["metrics"][0]["value"], 0.9);
  for (const nlohmann::ordered_json& parameter : first["parameters"]) {
    if (parameter["parameterId"] == "opt") {
      EXPECT_EQ(parameter["value"], "adam");
    } else {
      EXPECT_TRUE(parameter["value"].is_number()) << parameter.dump();
    }
  }
  EXPECT_EQ(out["trials"][1]["state"], "ACTIVE");
  EXPECT_EQ(out["trials"][2]["state"], "INFEASIBLE");
}

TEST(EncodeTuningJobTest, AMeasurementListsEveryMetricInTheStudysOrder) {
  nlohmann::json body = nlohmann::json::parse(kStudy);
  body["studySpec"]["metrics"] = nlohmann::json::parse(
      R"([{"metricId": "acc", "goal": "MAXIMIZE"}, {"metricId": "loss", "goal": "MINIMIZE"},
          {"metricId": "ms", "goal": "MINIMIZE"}])");
  model::Job job = ToJob(DecodedStudy(body.dump()), TuningContext());
  job.extras->vertex->document = body.dump();
  model::HyperparameterOutput done;
  done.trial_id = "1";
  done.state = model::JobState::kSucceeded;
  done.final_metric = model::HyperparameterMetric{.training_step = 3, .objective_value = 0.9};
  model::HyperparameterOutput unmeasured;  // completed without every metric
  unmeasured.trial_id = "2";
  unmeasured.state = model::JobState::kSucceeded;
  job.training_output = model::TrainingOutput{.trials = {done, unmeasured}};
  job.extras->trial_measurements = {{.trial_id = "1", .values = {0.25, 40}}};
  const nlohmann::ordered_json out = EncodeTuningJob("p", job);
  EXPECT_EQ(out["studySpec"]["metrics"].size(), 3U) << out.dump();
  EXPECT_EQ(out["trials"][0]["finalMeasurement"]["metrics"],
            nlohmann::ordered_json::parse(R"([{"metricId": "acc", "value": 0.9},
                                              {"metricId": "loss", "value": 0.25},
                                              {"metricId": "ms", "value": 40.0}])"));
  EXPECT_FALSE(out["trials"][1].contains("finalMeasurement")) << out["trials"][1].dump();
}

}  // namespace
}  // namespace trainyard::vertex
