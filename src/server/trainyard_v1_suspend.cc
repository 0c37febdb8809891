#include "server/trainyard_v1_suspend.h"

#include <string>

#include <nlohmann/json.hpp>

#include "server/http_message.h"
#include "server/json_body.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

constexpr std::string_view kJob = "/trainyard/v1/projects/{project}/jobs/{jobId}";

HttpResponse Answer(const Result<model::Job>& job) {
  if (!job.ok()) {
    return ErrorResponse(job.status());
  }
  const nlohmann::ordered_json body = {
      {"jobId", job->job_id},
      {"state", model::JobStateName(job->state)},
      {"suspended", job->extras.has_value() && job->extras->suspended}};
  return JsonResponse(body.dump());
}

HttpResponse Change(control::JobController& controller, const RoutedRequest& request,
                    bool suspend) {
  if (Status status =
          CheckEmptyMessage(request.http, suspend ? "SuspendJobRequest" : "ResumeJobRequest");
      !status.ok()) {
    return ErrorResponse(status);
  }
  return Answer(controller.SetSuspended(request.Param("project"), request.Param("jobId"), suspend));
}

}  // namespace

void AddTrainyardV1SuspendRoutes(Router& router, control::JobController& controller) {
  control::JobController* c = &controller;
  router.Add({"POST",
              std::string(kJob) + ":suspend",
              "trainyard.jobs.suspend",
              {},
              [c](const RoutedRequest& r) { return Change(*c, r, true); }});
  router.Add({"POST",
              std::string(kJob) + ":resume",
              "trainyard.jobs.resume",
              {},
              [c](const RoutedRequest& r) { return Change(*c, r, false); }});
  router.Add({"GET",
              std::string(kJob) + "/suspension",
              "trainyard.jobs.getSuspension",
              {},
              [c](const RoutedRequest& r) {
                return Answer(c->Get(r.Param("project"), r.Param("jobId")));
              }});
}

}  // namespace trainyard::server
