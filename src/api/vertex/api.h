// Vertex AI's training API (aiplatform v1 and v1beta1, docs/reference/ai-platform-training.md §13)
// as routes: `projects.locations.customJobs` and `projects.locations.hyperparameterTuningJobs`
// create, get, list and cancel. The resources are engine jobs (vertex/ maps them), so they share
// the queue, placement, replicas, logs (`gcloud ai custom-jobs stream-logs` reads them through
// logging v2) and the ml v1 view. Handlers decode, call the controller and encode; the rules are in
// vertex/, validate/ and control/.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "control/job_controller.h"
#include "server/router.h"

namespace trainyard::server {

struct VertexOptions {
  // Executor images that run with the server's Python (vertex::DefaultHostPythonPrefixes plus
  // `serve --executor-image-prefix`).
  std::vector<std::string> host_python_prefixes;
};

// `controller` and `catalog` must outlive the router.
void AddVertexRoutes(Router& router, control::JobController& controller,
                     const catalog::Catalog& catalog, VertexOptions options);

}  // namespace trainyard::server
