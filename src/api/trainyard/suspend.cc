#include "api/trainyard/suspend.h"

#include <string>

#include "api/trainyard/encode.h"
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
  return JsonResponse(SuspensionJson(*job).dump());
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
  router.Add({.method = "POST",
              .pattern = std::string(kJob) + ":suspend",
              .name = "trainyard.jobs.suspend",
              .handler = [c](const RoutedRequest& r) { return Change(*c, r, true); },
              .access = {{.permission = "ml.jobs.suspend"}},
              .audit = {.service = kTrainyardService,
                        .method = "trainyard.v1.JobService.SuspendJob",
                        .mutating = true,
                        .resource = AuditResource::kJob}});
  router.Add({.method = "POST",
              .pattern = std::string(kJob) + ":resume",
              .name = "trainyard.jobs.resume",
              .handler = [c](const RoutedRequest& r) { return Change(*c, r, false); },
              .access = {{.permission = "ml.jobs.suspend"}},
              .audit = {.service = kTrainyardService,
                        .method = "trainyard.v1.JobService.ResumeJob",
                        .mutating = true,
                        .resource = AuditResource::kJob}});
  router.Add({.method = "GET",
              .pattern = std::string(kJob) + "/suspension",
              .name = "trainyard.jobs.getSuspension",
              .handler =
                  [c](const RoutedRequest& r) {
                    return Answer(c->Get(r.Param("project"), r.Param("jobId")));
                  },
              .access = {{.permission = "ml.jobs.get"}},
              .audit = {.service = kTrainyardService,
                        .method = "trainyard.v1.JobService.GetSuspension",
                        .resource = AuditResource::kJob}});
}

}  // namespace trainyard::server
