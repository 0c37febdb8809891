// The ml v1 `projects.jobs` methods and `projects.getConfig`
// (docs/reference/ai-platform-training.md §1.2), as routes. Each handler decodes the request (path,
// query, JSON body), calls the controller and encodes the answer or the error: the rules live in
// `control/`, not here.
#pragma once

#include "control/job_controller.h"
#include "server/router.h"

namespace trainyard::server {

// Adds create, get, list, patch, cancel and getConfig to `router`. `controller` must outlive it.
void AddMlV1Routes(Router& router, control::JobController& controller);

}  // namespace trainyard::server
