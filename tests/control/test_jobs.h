// Jobs and fixtures shared by the controller tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "control/job_controller.h"
#include "fakes/fake_clock.h"
#include "fakes/temp_dir.h"
#include "model/job.h"
#include "store/job_store.h"
#include "support/sample_jobs.h"

namespace trainyard::control::testing {

using trainyard::testing::JobIds;
using trainyard::testing::ValidRuntimeJob;

// A controller over a real SQLite store in a temp dir and a fake clock.
class ControllerTest : public ::testing::Test {
 protected:
  ControllerTest();

  // Submits `ValidRuntimeJob(id)` (with `labels`), asserting success, then advances the clock 1 s.
  model::Job SubmitValid(const std::string& id, model::Labels labels = {});

  trainyard::testing::TempDir dir_;
  trainyard::testing::FakeClock clock_;
  std::unique_ptr<store::JobStore> store_;
  std::unique_ptr<JobController> controller_;
};

}  // namespace trainyard::control::testing
