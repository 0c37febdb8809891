#include "api/ml/handlers.h"

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "access/project_identity.h"
#include "base/text.h"
#include "model/json_codec.h"
#include "server/json_body.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

using control::JobController;

constexpr std::string_view kJobs = "/v1/projects/{project}/jobs";
constexpr std::string_view kJob = "/v1/projects/{project}/jobs/{jobId}";

// The request body as a Job (create's full job, patch's partial one).
Result<model::Job> DecodeBody(const HttpRequest& request) {
  TY_RETURN_IF_ERROR(CheckJsonBody(request));
  if (TrimWhitespace(request.body).empty()) {
    return Status::InvalidArgument("The request body is empty; expected a JSON Job.");
  }
  return model::DecodeJob(request.body);
}

HttpResponse JobResponse(const Result<model::Job>& job) {
  return job.ok() ? JsonResponse(model::EncodeJob(*job)) : ErrorResponse(job.status());
}

HttpResponse CreateJob(JobController& controller, const RoutedRequest& request) {
  auto job = DecodeBody(request.http);
  if (!job.ok()) {
    return ErrorResponse(job.status());
  }
  // The answer is the job as stored: the store's text, not a second encoding.
  Result<std::string> stored = controller.SubmitJson(request.Param("project"), *std::move(job));
  return stored.ok() ? JsonResponse(*std::move(stored)) : ErrorResponse(stored.status());
}

// The stored ml v1 JSON is the answer as is: jobs.get is the job, nothing added or hidden.
HttpResponse GetJob(const JobController& controller, const RoutedRequest& request) {
  Result<std::string> stored = controller.GetJson(request.Param("project"), request.Param("jobId"));
  return stored.ok() ? JsonResponse(*std::move(stored)) : ErrorResponse(stored.status());
}

HttpResponse ListJobs(const JobController& controller, const RoutedRequest& request) {
  auto page_size = ParsePageSize(request.Query("pageSize"));
  if (!page_size.ok()) {
    return ErrorResponse(page_size.status());
  }
  control::ListJobsRequest list{.page_size = *page_size};
  if (const std::string* token = request.Query("pageToken")) {
    list.page_token = *token;
  }
  if (const std::string* filter = request.Query("filter")) {
    list.filter = *filter;
  }
  auto page = controller.ListJson(request.Param("project"), list);
  if (!page.ok()) {
    return ErrorResponse(page.status());
  }
  // Both keys are left out when empty: no jobs is "{}" (docs/reference/ai-platform-training.md
  // §1.2).
  std::size_t size = 64 + page->next_page_token.size();
  for (const std::string& job : page->jobs) {
    size += job.size() + 1;
  }
  std::string body;
  body.reserve(size);
  body += '{';
  if (!page->jobs.empty()) {
    body += "\"jobs\":[";
    for (std::size_t i = 0; i < page->jobs.size(); ++i) {
      if (i > 0) {
        body += ',';
      }
      body += page->jobs[i];
    }
    body += ']';
  }
  if (!page->next_page_token.empty()) {
    body += page->jobs.empty() ? "" : ",";
    body +=
        "\"nextPageToken\":" + nlohmann::json(page->next_page_token)
                                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  body += '}';
  return JsonResponse(std::move(body));
}

// `updateMask` is a google.protobuf.FieldMask in its JSON form: comma-separated paths.
std::vector<std::string> ParseUpdateMask(const std::string* text) {
  std::vector<std::string> paths;
  std::string_view rest = text == nullptr ? std::string_view() : std::string_view(*text);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view path = TrimWhitespace(rest.substr(0, comma));
    if (!path.empty()) {
      paths.emplace_back(path);
    }
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return paths;
}

HttpResponse PatchJob(JobController& controller, const RoutedRequest& request) {
  auto patch = DecodeBody(request.http);
  if (!patch.ok()) {
    return ErrorResponse(patch.status());
  }
  return JobResponse(controller.Patch(request.Param("project"), request.Param("jobId"), *patch,
                                      ParseUpdateMask(request.Query("updateMask"))));
}

HttpResponse CancelJob(JobController& controller, const RoutedRequest& request) {
  Status status = CheckEmptyMessage(request.http, "CancelJobRequest");
  if (status.ok()) {
    status = controller.Cancel(request.Param("project"), request.Param("jobId"));
  }
  return status.ok() ? JsonResponse("{}") : ErrorResponse(status);
}

// The project's identities are access/'s (access/project_identity.h); this only spells them.
HttpResponse GetConfig(const RoutedRequest& request) {
  const access::ProjectIdentity identity = access::IdentityOf(request.Param("project"));
  const nlohmann::ordered_json body = {
      {"serviceAccount", identity.service_account},
      {"serviceAccountProject", identity.number},
      {"config", {{"tpuServiceAccount", identity.tpu_service_account}}},
  };
  return JsonResponse(body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

}  // namespace

void AddMlV1Routes(Router& router, JobController& controller) {
  JobController* c = &controller;
  router.Add({.method = "POST",
              .pattern = std::string(kJobs),
              .name = "jobs.create",
              .handler = [c](const RoutedRequest& r) { return CreateJob(*c, r); },
              .access = {{.permission = "ml.jobs.create"}},
              .audit = {.service = kMlService,
                        .method = "google.cloud.ml.v1.JobService.CreateJob",
                        .mutating = true,
                        .resource = AuditResource::kJob}});
  router.Add(
      {.method = "GET",
       .pattern = std::string(kJobs),
       .name = "jobs.list",
       .query_params = {"pageSize", "pageToken", "filter"},
       .handler = [c](const RoutedRequest& r) { return ListJobs(*c, r); },
       .access = {{.permission = "ml.jobs.list"}},
       .audit = {.service = kMlService, .method = "google.cloud.ml.v1.JobService.ListJobs"}});
  router.Add({.method = "GET",
              .pattern = std::string(kJob),
              .name = "jobs.get",
              .handler = [c](const RoutedRequest& r) { return GetJob(*c, r); },
              .access = {{.permission = "ml.jobs.get"}},
              .audit = {.service = kMlService,
                        .method = "google.cloud.ml.v1.JobService.GetJob",
                        .resource = AuditResource::kJob}});
  router.Add({.method = "PATCH",
              .pattern = std::string(kJob),
              .name = "jobs.patch",
              .query_params = {"updateMask"},
              .handler = [c](const RoutedRequest& r) { return PatchJob(*c, r); },
              .access = {{.permission = "ml.jobs.update"}},
              .audit = {.service = kMlService,
                        .method = "google.cloud.ml.v1.JobService.UpdateJob",
                        .mutating = true,
                        .resource = AuditResource::kJob}});
  router.Add({.method = "POST",
              .pattern = std::string(kJob) + ":cancel",
              .name = "jobs.cancel",
              .handler = [c](const RoutedRequest& r) { return CancelJob(*c, r); },
              .access = {{.permission = "ml.jobs.cancel"}},
              .audit = {.service = kMlService,
                        .method = "google.cloud.ml.v1.JobService.CancelJob",
                        .mutating = true,
                        .resource = AuditResource::kJob}});
  router.Add({.method = "GET",
              .pattern = "/v1/projects/{project}:getConfig",
              .name = "projects.getConfig",
              .handler = GetConfig,
              .access = {{.permission = "ml.projects.getConfig"}},
              .audit = {.service = kMlService,
                        .method = "google.cloud.ml.v1.ProjectManagementService.GetConfig"}});
}

}  // namespace trainyard::server
