// trainingOutput of a built-in algorithm's job (control/reconcile/algorithm_output.h,
// docs/reference/ai-platform-training.md §2.5): marked at submission, modelPath on success only.
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "control/reconcile/algorithm_output.h"

namespace trainyard::control {
namespace {

model::Job JobWithImage(std::string image) {
  model::Job job;
  job.job_id = "j";
  job.training_input.emplace();
  job.training_input->master_config.emplace();
  job.training_input->master_config->image_uri = std::move(image);
  job.training_input->job_dir = "gs://b/out/";
  return job;
}

TEST(AlgorithmOutput, MarksTheJobsOfAnAlgorithmThisServerRuns) {
  model::Job job = JobWithImage("gcr.io/cloud-ml-algos/boosted_trees:latest");
  MarkBuiltInAlgorithm(job);
  ASSERT_TRUE(job.training_output.has_value());
  EXPECT_TRUE(job.training_output->is_built_in_algorithm_job);
  ASSERT_TRUE(job.training_output->built_in_algorithm_output.has_value());
  EXPECT_EQ(job.training_output->built_in_algorithm_output->framework, "XGBOOST");
  EXPECT_FALSE(job.training_output->built_in_algorithm_output->runtime_version.empty());
  EXPECT_FALSE(job.training_output->built_in_algorithm_output->python_version.empty());
  EXPECT_EQ(job.training_output->built_in_algorithm_output->model_path, "");

  for (const char* other : {"gcr.io/p/trainer:1", "gcr.io/cloud-ml-algos/tab_net", ""}) {
    model::Job plain = JobWithImage(other);
    MarkBuiltInAlgorithm(plain);
    EXPECT_FALSE(plain.training_output.has_value()) << other;
  }
}

struct OutcomeCase {
  std::string name;
  model::JobState from;
  model::JobState to;
  bool tuning;
  std::string model_path;
};

void PrintTo(const OutcomeCase& c, std::ostream* os) {
  *os << c.name;
}

class ModelPathTest : public ::testing::TestWithParam<OutcomeCase> {};

TEST_P(ModelPathTest, IsSetWhenTheJobSucceeds) {
  const OutcomeCase& c = GetParam();
  model::Job previous = JobWithImage("gcr.io/cloud-ml-algos/boosted_trees");
  if (c.tuning) {
    previous.training_input->hyperparameters.emplace();
  }
  MarkBuiltInAlgorithm(previous);
  previous.state = c.from;
  model::Job next = previous;
  next.state = c.to;
  CompleteAlgorithmOutput(previous, next);
  EXPECT_EQ(next.training_output->built_in_algorithm_output->model_path, c.model_path);
}

INSTANTIATE_TEST_SUITE_P(
    Outcomes, ModelPathTest,
    ::testing::Values(OutcomeCase{"Succeeded", model::JobState::kRunning,
                                  model::JobState::kSucceeded, false, "gs://b/out/model"},
                      OutcomeCase{"Failed", model::JobState::kRunning, model::JobState::kFailed,
                                  false, ""},
                      OutcomeCase{"Cancelled", model::JobState::kCancelling,
                                  model::JobState::kCancelled, false, ""},
                      OutcomeCase{"StillRunning", model::JobState::kPreparing,
                                  model::JobState::kRunning, false, ""},
                      OutcomeCase{"TuningStudy", model::JobState::kRunning,
                                  model::JobState::kSucceeded, true, ""}),
    [](const ::testing::TestParamInfo<OutcomeCase>& param) { return param.param.name; });

struct TrialCase {
  std::string name;
  model::JobState state;
  std::string trial_id;
  std::string model_path;  // "" when the trial gets no builtInAlgorithmOutput
};

void PrintTo(const TrialCase& c, std::ostream* os) {
  *os << c.name;
}

class TrialOutputTest : public ::testing::TestWithParam<TrialCase> {};

// docs/reference/ai-platform-training.md §2.5: a tuning job's trials carry their own
// builtInAlgorithmOutput, with the model each wrote under <jobDir>/<trial>/model.
TEST_P(TrialOutputTest, IsSetWhenTheTrialSucceeds) {
  const TrialCase& c = GetParam();
  model::Job previous = JobWithImage("gcr.io/cloud-ml-algos/boosted_trees");
  previous.training_input->hyperparameters.emplace();
  MarkBuiltInAlgorithm(previous);
  previous.state = model::JobState::kRunning;
  model::Job next = previous;
  next.training_output->trials.push_back({.trial_id = c.trial_id, .state = c.state});
  CompleteAlgorithmOutput(previous, next);
  const model::HyperparameterOutput& trial = next.training_output->trials.front();
  if (c.model_path.empty()) {
    EXPECT_FALSE(trial.built_in_algorithm_output.has_value());
  } else {
    ASSERT_TRUE(trial.built_in_algorithm_output.has_value());
    EXPECT_EQ(trial.built_in_algorithm_output->framework, "XGBOOST");
    EXPECT_EQ(trial.built_in_algorithm_output->model_path, c.model_path);
  }
  EXPECT_EQ(next.training_output->built_in_algorithm_output->model_path, "");
}

INSTANTIATE_TEST_SUITE_P(
    Trials, TrialOutputTest,
    ::testing::Values(TrialCase{"Succeeded", model::JobState::kSucceeded, "2",
                                "gs://b/out/2/model"},
                      TrialCase{"Running", model::JobState::kRunning, "1", ""},
                      TrialCase{"Failed", model::JobState::kFailed, "1", ""},
                      TrialCase{"Cancelled", model::JobState::kCancelled, "3", ""},
                      TrialCase{"NoTrialId", model::JobState::kSucceeded, "", ""}),
    [](const ::testing::TestParamInfo<TrialCase>& param) { return param.param.name; });

TEST(AlgorithmOutput, TheStudyGetsNoModelPathWhenItSucceeds) {
  model::Job previous = JobWithImage("gcr.io/cloud-ml-algos/boosted_trees");
  previous.training_input->hyperparameters.emplace();
  MarkBuiltInAlgorithm(previous);
  previous.state = model::JobState::kRunning;
  previous.training_output->trials.push_back(
      {.trial_id = "1", .state = model::JobState::kSucceeded});
  model::Job next = previous;
  next.state = model::JobState::kSucceeded;
  CompleteAlgorithmOutput(previous, next);
  EXPECT_EQ(next.training_output->built_in_algorithm_output->model_path, "");
  EXPECT_EQ(next.training_output->trials.front().built_in_algorithm_output->model_path,
            "gs://b/out/1/model");
}

}  // namespace
}  // namespace trainyard::control
