#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "api/vertex/internal.h"
#include "server/json_body.h"
#include "server/rpc_error.h"
#include "validate/validate.h"
#include "vertex/custom_job_mapping.h"
#include "vertex/vertex_json.h"

namespace trainyard::server::vertex_internal {
namespace {

Status NotFound(std::string_view kind, const RoutedRequest& request) {
  return Status::NotFound(fmt::format("The {} projects/{}/locations/{}/{}/{} does not exist.", kind,
                                      request.Param("project"), request.Param("location"),
                                      vertex::CollectionOf(kind), request.Param("jobId")));
}

}  // namespace

std::string CollectionPattern(std::string_view version, std::string_view collection) {
  return fmt::format("/{}/projects/{{project}}/locations/{{location}}/{}", version, collection);
}

HttpResponse JsonAnswer(const nlohmann::ordered_json& value) {
  return JsonResponse(value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

Result<model::Job> FindJob(const control::JobController& controller, const RoutedRequest& request,
                           std::string_view kind) {
  const std::string& id = request.Param("jobId");
  if (!validate::IsVertexJobId(id)) {
    return Status::InvalidArgument(std::vector<FieldViolation>{
        {"name",
         fmt::format("'{}' is not a {} id: ids are the numbers the server gives", id, kind)}});
  }
  Result<model::Job> job = controller.Get(request.Param("project"), id);
  if (!job.ok()) {
    return job.status().code() == Code::kNotFound ? NotFound(kind, request) : job.status();
  }
  if (!vertex::IsResourceIn(*job, kind, request.Param("location"))) {
    return NotFound(kind, request);
  }
  return job;
}

HttpResponse ListJobs(const control::JobController& controller, const RoutedRequest& request,
                      std::string_view kind, std::string_view list_key,
                      const std::function<nlohmann::ordered_json(const model::Job&)>& encode) {
  Result<int> page_size = ParsePageSize(request.Query("pageSize"));
  if (!page_size.ok()) {
    return ErrorResponse(page_size.status());
  }
  control::ListJobsRequest list{.page_size = *page_size,
                                .dialect = control::FilterDialect::kVertex};
  if (const std::string* token = request.Query("pageToken")) {
    list.page_token = *token;
  }
  if (const std::string* filter = request.Query("filter")) {
    list.filter = *filter;
  }
  list.scope = [kind = std::string(kind), location = request.Param("location")](
                   const model::Job& job) { return vertex::IsResourceIn(job, kind, location); };
  Result<control::ListJobsResponse> page = controller.List(request.Param("project"), list);
  if (!page.ok()) {
    return ErrorResponse(page.status());
  }
  nlohmann::ordered_json body = nlohmann::ordered_json::object();
  if (!page->jobs.empty()) {
    nlohmann::ordered_json& items = body[std::string(list_key)] = nlohmann::ordered_json::array();
    for (const model::Job& job : page->jobs) {
      items.push_back(encode(job));
    }
  }
  if (!page->next_page_token.empty()) {
    body["nextPageToken"] = page->next_page_token;
  }
  return JsonAnswer(body);
}

HttpResponse CancelJob(control::JobController& controller, const RoutedRequest& request,
                       std::string_view kind) {
  Status status =
      CheckEmptyMessage(request.http, fmt::format("Cancel{}Request has only the name", kind));
  if (status.ok()) {
    Result<model::Job> job = FindJob(controller, request, kind);
    status = job.ok() ? controller.Cancel(request.Param("project"), job->job_id) : job.status();
  }
  return status.ok() ? JsonResponse("{}") : ErrorResponse(status);
}

}  // namespace trainyard::server::vertex_internal
