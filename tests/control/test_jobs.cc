#include "control/test_jobs.h"

#include <chrono>

#include "store/sqlite_job_store.h"

namespace trainyard::control::testing {

model::Job ValidJob(std::string job_id) {
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
  job.training_input = input;
  return job;
}

std::vector<std::string> Ids(const std::vector<model::Job>& jobs) {
  std::vector<std::string> ids;
  ids.reserve(jobs.size());
  for (const model::Job& job : jobs) {
    ids.push_back(job.job_id);
  }
  return ids;
}

ControllerTest::ControllerTest() {
  Result<std::unique_ptr<store::JobStore>> opened =
      store::OpenSqliteJobStore(dir_.File("trainyard.db"));
  TY_CHECK(opened.ok()) << opened.status().ToString();
  store_ = std::move(*opened);
  controller_ = std::make_unique<JobController>(*store_, catalog::Catalog::Builtin(), clock_);
}

model::Job ControllerTest::SubmitValid(const std::string& id, model::Labels labels) {
  model::Job job = ValidJob(id);
  job.labels = std::move(labels);
  Result<model::Job> submitted = controller_->Submit("proj", job);
  EXPECT_TRUE(submitted.ok()) << submitted.status().ToString();
  clock_.Advance(std::chrono::seconds(1));
  return submitted.ok() ? *submitted : model::Job{};
}

}  // namespace trainyard::control::testing
