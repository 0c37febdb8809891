#include "api/trainyard/handlers.h"

#include <nlohmann/json.hpp>

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
  nlohmann::json replicas = nlohmann::json::array();
  for (const control::ReplicaInfo& info :
       control::ShownReplicas(lookup, recorded, project, job_id,
                              include_ended != nullptr && *include_ended == "true")) {
    nlohmann::json replica = {{"taskName", info.task_name},
                              {"state", info.state},
                              {"pid", info.pid},
                              {"restarts", info.restarts}};
    if (!info.trial_id.empty()) {
      replica["trialId"] = info.trial_id;
    }
    if (!info.exit_status.empty()) {
      replica["exitStatus"] = info.exit_status;
    }
    if (!info.node.empty()) {
      replica["node"] = info.node;
      replica["deviceIndices"] = info.device_indices;
    }
    replicas.push_back(std::move(replica));
  }
  return JsonResponse(nlohmann::json{{"replicas", std::move(replicas)}}.dump());
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
