#include "control/reconcile/algorithm_output.h"

#include <string>

#include "algorithms/algorithms.h"

namespace trainyard::control {

void MarkBuiltInAlgorithm(model::Job& job) {
  if (!job.training_input || !job.training_input->master_config) {
    return;
  }
  const algorithms::Algorithm* algorithm =
      algorithms::FindAlgorithm(job.training_input->master_config->image_uri);
  if (algorithm == nullptr || !algorithm->available) {
    return;
  }
  model::TrainingOutput& output =
      job.training_output ? *job.training_output : job.training_output.emplace();
  output.is_built_in_algorithm_job = true;
  output.built_in_algorithm_output =
      model::BuiltInAlgorithmOutput{.framework = algorithm->framework,
                                    .runtime_version = algorithm->runtime_version,
                                    .python_version = algorithm->python_version,
                                    .model_path = {}};
}

namespace {

// The job dir without its trailing slashes.
std::string JobDirOf(const model::Job& job) {
  std::string job_dir = job.training_input->job_dir;
  while (job_dir.size() > 1 && job_dir.back() == '/') {
    job_dir.pop_back();
  }
  return job_dir;
}

}  // namespace

void CompleteAlgorithmOutput(const model::Job& previous, model::Job& next) {
  if (!next.training_output || !next.training_output->is_built_in_algorithm_job ||
      !next.training_output->built_in_algorithm_output || !next.training_input ||
      next.training_input->job_dir.empty()) {
    return;
  }
  const model::BuiltInAlgorithmOutput& study = *next.training_output->built_in_algorithm_output;
  if (next.training_input->hyperparameters) {
    // A trial that has succeeded gets its own output, with the model it wrote under its id.
    for (model::HyperparameterOutput& trial : next.training_output->trials) {
      if (trial.state == model::JobState::kSucceeded && !trial.built_in_algorithm_output &&
          !trial.trial_id.empty()) {
        trial.built_in_algorithm_output = study;
        trial.built_in_algorithm_output->model_path =
            JobDirOf(next) + "/" + trial.trial_id + "/model";
      }
    }
    return;
  }
  if (next.state != model::JobState::kSucceeded || previous.state == model::JobState::kSucceeded) {
    return;
  }
  next.training_output->built_in_algorithm_output->model_path = JobDirOf(next) + "/model";
}

}  // namespace trainyard::control
