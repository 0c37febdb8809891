// Suspending and resuming a job (issue #34): trainyard's own verbs, as Google's ml v1 has none.
//   POST /trainyard/v1/projects/{project}/jobs/{jobId}:suspend   (body empty or {})
//   POST /trainyard/v1/projects/{project}/jobs/{jobId}:resume
//   GET  /trainyard/v1/projects/{project}/jobs/{jobId}/suspension
// each answer {"jobId": "…", "state": "QUEUED", "suspended": true}: the job as stored after the
// call (a running job stays RUNNING until the executor has stopped its replicas, then is QUEUED).
// Any job the engine runs, however submitted (ml v1, Vertex AI, a TFJob: the same flag as its
// runPolicy.suspend, control/reconcile/suspend.h). An ended job: FAILED_PRECONDITION naming its
// state; suspending a suspended job changes nothing.
#pragma once

#include "control/job_controller.h"
#include "server/router.h"

namespace trainyard::server {

// `controller` must outlive `router`.
void AddTrainyardV1SuspendRoutes(Router& router, control::JobController& controller);

}  // namespace trainyard::server
