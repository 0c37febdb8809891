// trainyard v1's sharing admin API (issue #34): the projects' quotas and weights and the priority
// classes, as sched/sharing_json.h spells them, over control/sharing_admin.h.
//   GET    /trainyard/v1/sharing                          the whole policy:
//          {"projects": [{"project": "p", "accelerators": {"NVIDIA_TESLA_T4": 4}, "cpus": 64,
//                         "memory": "256Gi", "jobs": 20, "weight": 2}],
//           "priorityClasses": {"high": 1000}}
//   GET    /trainyard/v1/projects/{project}/quota         one project's (none: no limits, weight 1)
//   PUT    /trainyard/v1/projects/{project}/quota         replaces it; answers the stored quota
//   DELETE /trainyard/v1/projects/{project}/quota         removes it (NOT_FOUND when none); {}
//   GET    /trainyard/v1/priorityClasses                  {"priorityClasses": {"high": 1000}}
//   PUT    /trainyard/v1/priorityClasses/{name}           {"value": 1000}; answers {"name",
//   "value"} DELETE /trainyard/v1/priorityClasses/{name}           NOT_FOUND when none; {}
// Reading needs a viewer's `trainyard.quotas.get` / `.list`, `trainyard.priorityClasses.list`;
// changing needs an admin's `trainyard.quotas.update` / `.delete`,
// `trainyard.priorityClasses.update` / `.delete` (api/access_check.cc). Bad input is
// INVALID_ARGUMENT with a field violation per problem and changes nothing.
#pragma once

#include "control/sharing_admin.h"
#include "server/router.h"

namespace trainyard::server {

// `admin` must outlive `router`.
void AddTrainyardV1SharingRoutes(Router& router, control::SharingAdmin& admin);

}  // namespace trainyard::server
