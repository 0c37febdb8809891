// Sample jobs shared by the tests of every module.
#pragma once

#include <string>
#include <vector>

#include "model/job.h"

namespace trainyard::testing {

// A runtime job that passes validation with the builtin catalog: BASIC tier, us-central1, a gs://
// package and module, runtime 2.11 with Python 3.7, a job dir. Tests mutate it from here.
model::Job ValidRuntimeJob(std::string job_id = "baseline_job");

// `input` without its Python package, module, runtime version and Python version: the fields a
// job that runs a container image (set by the caller) leaves out.
void DropPythonPackage(model::TrainingInput& input);

// The ids of `jobs`, in order.
std::vector<std::string> JobIds(const std::vector<model::Job>& jobs);

}  // namespace trainyard::testing
