// trainyard's own API, beside the Google-compatible ones: what only a self-hosted service can
// show. `GET /trainyard/v1/projects/{project}/jobs/{jobId}/replicas` lists a running job's
// replicas (control/executor.h ReplicaInfo):
//   {"replicas": [{"taskName": "master-replica-0", "state": "RUNNING", "pid": 4242,
//                  "restarts": 0, "exitStatus": "…", "node": "localhost", "deviceIndices": [0]}]}
// (an empty list when the executor runs nothing for the job; NOT_FOUND for an unknown job). With
// `?includeEnded=true`, a job the executor runs nothing for answers the replicas its last run
// left instead (control/replica_history.h), so the console shows how an ended job's replicas ended.
#pragma once

#include "control/job_controller.h"
#include "control/replica_lookup.h"
#include "server/router.h"

namespace trainyard::server {

// A job's replicas as its executor sees them (Executor::Replicas); nullopt: none. Which of them
// the route shows is control/replica_lookup.h's ShownReplicas.
using ReplicaLookup = control::ReplicaSource;

// `controller` must outlive `router`. `recorded`: the replicas a job's last run left (unset: none).
void AddTrainyardV1Routes(Router& router, const control::JobController& controller,
                          ReplicaLookup replicas, ReplicaLookup recorded = {});

}  // namespace trainyard::server
