// Suspending and resuming a job through trainyard's own verb (issue #34; ml v1 has no such method,
// so it is `POST /trainyard/v1/projects/{p}/jobs/{j}:suspend` and `:resume`). The same flag a
// TFJob's runPolicy.suspend sets (model::JobExtras::suspended): the queue rule does not place a
// suspended job, and the run rules stop a running one and put it back in the queue (QUEUED,
// startTime cleared); resumed, it waits for room like any queued job. Pure: the job controller
// writes the result (JobController::SetSuspended).
//
//   - a job that has ended, or is being cancelled: FAILED_PRECONDITION naming its state;
//   - a hyperparameter tuning job: FAILED_PRECONDITION (its trials run under the study, which
//     cannot be stopped and queued as one; cancel it and resume the study with
//     resumePreviousJobId);
//   - already as asked (suspending a suspended job, resuming one that is not): no change;
//   - otherwise the job with the flag set (extras added if it had none), and once resumed,
//     marked so (JobExtras::resumed: a TFJob's Suspended=False condition, TFJobResumed).
#pragma once

#include <optional>

#include "base/status.h"
#include "model/job.h"

namespace trainyard::control {

Result<std::optional<model::Job>> SuspendChange(const model::Job& current, bool suspend);

}  // namespace trainyard::control
