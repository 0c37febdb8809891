// trainyard v1's view of the cluster (issue #18, the console's cluster page):
// `GET /trainyard/v1/projects/{project}/cluster` answers the nodes (CPUs, memory, labels,
// devices), which replica holds each device, and the queue in order with why each job waits:
//   {"nodes": [{"name": "localhost", "cpus": 16, "memoryMib": 64000, "labels": {…},
//               "devices": [{"index": 0, "accelerator": "NVIDIA_TESLA_T4", "model": "emulated",
//                            "emulated": true,
//                            "heldBy": {"jobId": "j1", "taskName": "master-replica-0"}}]}],
//    "queue": [{"jobId": "j2", "position": 1, "reason": "Waiting for room: …"}],
//    "otherProjectsQueued": 0,
//    "projects": [{"project": "p", "quota": {…}, "use": {"accelerators": {"NVIDIA_TESLA_T4": 2},
//                  "cpus": 8, "memory": "30Gi", "jobs": 1},
//                  "borrowed": {"accelerators": {"NVIDIA_TESLA_T4": 1}, "cpus": 0,
//                               "memory": "0", "jobs": 0},
//                  "share": 0.5, "weight": 2, "waitingJobs": 1}]}
// `projects` has every project with a quota (issue #34; sched/sharing_json.h, null without one),
// something held, or jobs waiting: what the console's cluster page shows beside the devices.
// `borrowed` (the shape of `use`) and `share` are as the sharing pass counts them
// (sched/project_share.h): the use beyond each quota limit (none without a quota), and the
// dominant share of the inventory, 0..1, before `weight` (the quota's; 1 without one).
// Read with `ml.jobs.list` on the project: the caller sees its own project's jobs by name; a
// device another project's job holds says only `{"otherProject": true}`, and the other projects'
// queued jobs are only counted (their positions still count in the ones shown). Those rules and
// the projects' standings are control/cluster_view.h's; the handler only spells them.
#pragma once

#include <functional>
#include <optional>

#include "control/cluster_view.h"
#include "server/router.h"

namespace trainyard::server {

// The cluster now (what the executor knows of it, as of its last pass); nullopt while no executor
// runs.
using ClusterLookup = std::function<std::optional<control::ClusterView>()>;

void AddTrainyardV1ClusterRoute(Router& router, ClusterLookup cluster);

}  // namespace trainyard::server
