#include "support/sample_jobs.h"

#include <utility>

namespace trainyard::testing {

model::Job ValidRuntimeJob(std::string job_id) {
  model::Job job;
  job.job_id = std::move(job_id);
  model::TrainingInput input;
  input.scale_tier = model::ScaleTier::kBasic;
  input.region = "us-central1";
  input.package_uris = {"gs://my-bucket/trainer-0.1.tar.gz"};
  input.python_module = "trainer.task";
  input.runtime_version = "2.11";
  input.python_version = "3.7";
  input.job_dir = "gs://my-bucket/output";
  job.training_input = std::move(input);
  return job;
}

void DropPythonPackage(model::TrainingInput& input) {
  input.package_uris.clear();
  input.python_module.clear();
  input.runtime_version.clear();
  input.python_version.clear();
}

std::vector<std::string> JobIds(const std::vector<model::Job>& jobs) {
  std::vector<std::string> ids;
  ids.reserve(jobs.size());
  for (const model::Job& job : jobs) {
    ids.push_back(job.job_id);
  }
  return ids;
}

}  // namespace trainyard::testing
