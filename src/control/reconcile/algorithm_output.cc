#include "control/reconcile/algorithm_output.h"

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

void CompleteAlgorithmOutput(const model::Job& previous, model::Job& next) {
  if (next.state != model::JobState::kSucceeded || previous.state == model::JobState::kSucceeded ||
      !next.training_output || !next.training_output->is_built_in_algorithm_job ||
      !next.training_output->built_in_algorithm_output || !next.training_input ||
      next.training_input->hyperparameters || next.training_input->job_dir.empty()) {
    return;
  }
  std::string job_dir = next.training_input->job_dir;
  while (job_dir.size() > 1 && job_dir.back() == '/') {
    job_dir.pop_back();
  }
  next.training_output->built_in_algorithm_output->model_path = job_dir + "/model";
}

}  // namespace trainyard::control
