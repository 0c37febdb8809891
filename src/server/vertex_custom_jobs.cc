#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/text.h"
#include "server/json_body.h"
#include "server/rpc_error.h"
#include "server/vertex_api.h"
#include "server/vertex_internal.h"
#include "vertex/custom_job.h"
#include "vertex/custom_job_mapping.h"
#include "vertex/vertex_json.h"

namespace trainyard::server {
namespace {

using vertex_internal::JsonAnswer;

struct Context {
  control::JobController* controller;
  const catalog::Catalog* catalog;
  VertexOptions options;
};

// The request's jobSpec as it came (kept and echoed as the resource's spec).
std::string SpecDocument(std::string_view body, std::string_view member) {
  const nlohmann::ordered_json value = nlohmann::ordered_json::parse(body, nullptr, false);
  const auto it = value.is_object() ? value.find(member) : value.end();
  if (it == value.end() || !it->is_object()) {
    return "{}";
  }
  return it->dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

HttpResponse Create(const Context& context, const RoutedRequest& request) {
  Status status = CheckJsonBody(request.http);
  if (!status.ok()) {
    return ErrorResponse(status);
  }
  Result<vertex::CustomJob> job = vertex::DecodeCustomJob(request.http.body);
  if (!job.ok()) {
    return ErrorResponse(job.status());
  }
  vertex::MappingContext mapping{.job_id = {},
                                 .kind = std::string(vertex::kCustomJobKind),
                                 .location = request.Param("location"),
                                 .document = SpecDocument(request.http.body, "jobSpec"),
                                 .host_python_prefixes = context.options.host_python_prefixes,
                                 .catalog = context.catalog};
  std::vector<FieldViolation> violations = vertex::ValidateDisplayName(job->display_name);
  for (FieldViolation& violation : vertex::ValidateJobSpec(job->job_spec, "jobSpec", mapping)) {
    violations.push_back(std::move(violation));
  }
  if (!violations.empty()) {
    return ErrorResponse(Status::InvalidArgument(std::move(violations)));
  }
  const std::string& project = request.Param("project");
  Result<model::Job> submitted = vertex_internal::SubmitWithNewId(
      *context.controller, project, "jobSpec", [&](const std::string& id) {
        mapping.job_id = id;
        return vertex::ToJob(*job, mapping);
      });
  if (!submitted.ok()) {
    return ErrorResponse(submitted.status());
  }
  return JsonAnswer(vertex::EncodeCustomJob(project, *submitted));
}

HttpResponse Get(const Context& context, const RoutedRequest& request) {
  Result<model::Job> job =
      vertex_internal::FindJob(*context.controller, request, vertex::kCustomJobKind);
  if (!job.ok()) {
    return ErrorResponse(job.status());
  }
  return JsonAnswer(vertex::EncodeCustomJob(request.Param("project"), *job));
}

}  // namespace

void AddVertexCustomJobRoutes(Router& router, control::JobController& controller,
                              const catalog::Catalog& catalog, const VertexOptions& options) {
  auto context = std::make_shared<Context>(Context{&controller, &catalog, options});
  for (const std::string_view version : vertex_internal::kVersions) {
    const std::string jobs = vertex_internal::CollectionPattern(version, "customJobs");
    const std::string job = jobs + "/{jobId}";
    router.Add(
        {"POST", jobs, "aiplatform.customJobs.create", {}, [context](const RoutedRequest& r) {
           return Create(*context, r);
         }});
    router.Add({"GET",
                jobs,
                "aiplatform.customJobs.list",
                {"pageSize", "pageToken", "filter", "readMask"},
                [context](const RoutedRequest& r) {
                  return vertex_internal::ListJobs(*context->controller, r, vertex::kCustomJobKind,
                                                   "customJobs", [&r](const model::Job& j) {
                                                     return vertex::EncodeCustomJob(
                                                         r.Param("project"), j);
                                                   });
                }});
    router.Add({"GET", job, "aiplatform.customJobs.get", {}, [context](const RoutedRequest& r) {
                  return Get(*context, r);
                }});
    router.Add({"POST",
                job + ":cancel",
                "aiplatform.customJobs.cancel",
                {},
                [context](const RoutedRequest& r) {
                  return vertex_internal::CancelJob(*context->controller, r,
                                                    vertex::kCustomJobKind);
                }});
  }
}

}  // namespace trainyard::server
