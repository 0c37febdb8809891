// Jobs, placements and lookups shared by the cluster plan tests.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/job.h"
#include "plan/cluster_plan.h"

namespace trainyard::plan::testing {

// testing::ValidRuntimeJob as CUSTOM n1-standard-4 with `workers`, `ps` and `evaluators`, and
// args "--epochs 3".
model::Job CustomJob(int workers, int ps, int evaluators);

// A job whose master runs the container gcr.io/p/trainer with command `command`.
model::Job ContainerJob(std::vector<std::string> command);

// One placement per replica on 127.0.0.1, ports 2222, 2223, … in order.
std::vector<ReplicaPlacement> Placements(std::size_t count);

// A context with a gcs mount, a storage emulator, a PYTHONPATH and a PyTorch port; no job id, so
// the job's own is used.
PlanContext Context();

// Expands `job` with the builtin catalog and builds its plan with `placements` (default:
// `Placements()`) and `context` (default: `Context()`).
Result<std::vector<ReplicaLaunch>> Plan(
    const model::Job& job, std::optional<std::vector<ReplicaPlacement>> placements = {},
    const std::optional<PlanContext>& context = {});

// The value of `name` in `launch.env`, or nullopt.
std::optional<std::string> EnvOf(const ReplicaLaunch& launch, std::string_view name);

// The names in `launch.env`, in order.
std::vector<std::string> EnvNames(const ReplicaLaunch& launch);

}  // namespace trainyard::plan::testing
