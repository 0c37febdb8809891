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

namespace trainyard::control::testing {

// A job that passes validation with the builtin catalog: BASIC tier, packages, runtime 2.11.
model::Job ValidJob(std::string job_id);

std::vector<std::string> Ids(const std::vector<model::Job>& jobs);

// A controller over a real SQLite store in a temp dir and a fake clock.
class ControllerTest : public ::testing::Test {
 protected:
  ControllerTest();

  // Submits `ValidJob(id)` (with `labels`), asserting success, then advances the clock 1 s.
  model::Job SubmitValid(const std::string& id, model::Labels labels = {});

  trainyard::testing::TempDir dir_;
  trainyard::testing::FakeClock clock_;
  std::unique_ptr<store::JobStore> store_;
  std::unique_ptr<JobController> controller_;
};

}  // namespace trainyard::control::testing
