#include "control/test_jobs.h"

#include <chrono>

#include "store/sqlite_job_store.h"

namespace trainyard::control::testing {

ControllerTest::ControllerTest() {
  Result<std::unique_ptr<store::JobStore>> opened =
      store::OpenSqliteJobStore(dir_.File("trainyard.db"));
  TY_CHECK(opened.ok()) << opened.status().ToString();
  store_ = std::move(*opened);
  controller_ = std::make_unique<JobController>(*store_, catalog::Catalog::Builtin(), clock_);
}

model::Job ControllerTest::SubmitValid(const std::string& id, model::Labels labels) {
  model::Job job = ValidRuntimeJob(id);
  job.labels = std::move(labels);
  Result<model::Job> submitted = controller_->Submit("proj", job);
  EXPECT_TRUE(submitted.ok()) << submitted.status().ToString();
  clock_.Advance(std::chrono::seconds(1));
  return submitted.ok() ? *submitted : model::Job{};
}

}  // namespace trainyard::control::testing
