#include "api/trainyard/handlers.h"

#include "api/trainyard/encode.h"
#include "control/replica_lookup.h"
#include "server/http_message.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

HttpResponse ListReplicas(const control::JobController& controller, const ReplicaLookup& lookup,
                          const ReplicaLookup& recorded, const RoutedRequest& request) {
  const std::string& project = request.Param("project");
  const std::string& job_id = request.Param("jobId");
  Result<model::Job> job = controller.Get(project, job_id);
  if (!job.ok()) {
    return ErrorResponse(job.status());
  }
  const std::string* include_ended = request.Query("includeEnded");
  return JsonResponse(
      ReplicasJson(control::ShownReplicas(lookup, recorded, project, job_id,
                                          include_ended != nullptr && *include_ended == "true"))
          .dump());
}

}  // namespace

void AddTrainyardV1Routes(Router& router, const control::JobController& controller,
                          ReplicaLookup replicas, ReplicaLookup recorded) {
  const control::JobController* c = &controller;
  router.Add(
      {.method = "GET",
       .pattern = "/trainyard/v1/projects/{project}/jobs/{jobId}/replicas",
       .name = "trainyard.jobs.replicas",
       .query_params = {"includeEnded"},
       .handler = [c, replicas = std::move(replicas), recorded = std::move(recorded)](
                      const RoutedRequest& r) { return ListReplicas(*c, replicas, recorded, r); },
       .access = {{.permission = "ml.jobs.get"}},
       .audit = {.service = kTrainyardService,
                 .method = "trainyard.v1.JobService.ListReplicas",
                 .resource = AuditResource::kJob}});
}

}  // namespace trainyard::server
