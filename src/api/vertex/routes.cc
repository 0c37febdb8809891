// The routes of both Vertex AI resources. CustomJob and HyperparameterTuningJob differ only in
// how a create body is decoded, checked and mapped (vertex/prepare.h, by kind) and how a stored
// job is shown; the `Resource` rows say so, and one set of handlers serves both.
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "api/vertex/api.h"
#include "api/vertex/internal.h"
#include "server/json_body.h"
#include "server/rpc_error.h"
#include "vertex/custom_job_mapping.h"
#include "vertex/prepare.h"
#include "vertex/tuning_job.h"
#include "vertex/vertex_json.h"

namespace trainyard::server {
namespace {

using nlohmann::ordered_json;
using vertex_internal::JsonAnswer;

struct Resource {
  std::string_view kind;        // "CustomJob": what vertex::PrepareCreate decodes a create as
  std::string_view collection;  // "customJobs": the path and the list's key
  ordered_json (*encode)(std::string_view project, const model::Job& job);
};

constexpr Resource kResources[] = {
    {vertex::kCustomJobKind, "customJobs", vertex::EncodeCustomJob},
    {vertex::kTuningJobKind, "hyperparameterTuningJobs", vertex::EncodeTuningJob},
};

struct Context {
  control::JobController* controller;
  const catalog::Catalog* catalog;
  VertexOptions options;
};

HttpResponse Create(const Context& context, const Resource& resource,
                    const RoutedRequest& request) {
  Status status = CheckJsonBody(request.http);
  if (!status.ok()) {
    return ErrorResponse(status);
  }
  Result<vertex::PreparedJob> prepared = vertex::PrepareCreate(
      request.http.body,
      vertex::MappingContext{.job_id = {},
                             .kind = std::string(resource.kind),
                             .location = request.Param("location"),
                             .document = {},
                             .host_python_prefixes = context.options.host_python_prefixes,
                             .catalog = context.catalog});
  if (!prepared.ok()) {
    return ErrorResponse(prepared.status());
  }
  const std::string& project = request.Param("project");
  Result<store::RevisionedJob> submitted =
      context.controller->SubmitWithId(project, vertex::JobIdScheme(), std::move(prepared->job));
  if (!submitted.ok()) {
    return ErrorResponse(vertex::WithVertexPaths(submitted.status(), prepared->spec_path,
                                                 prepared->parameter_paths));
  }
  return JsonAnswer(resource.encode(project, submitted->job));
}

HttpResponse Get(const Context& context, const Resource& resource, const RoutedRequest& request) {
  Result<model::Job> job = vertex_internal::FindJob(*context.controller, request, resource.kind);
  if (!job.ok()) {
    return ErrorResponse(job.status());
  }
  return JsonAnswer(resource.encode(request.Param("project"), *job));
}

// Google's methodName of `verb` on `kind` ("Create", "CustomJob"; a list's is plural).
std::string JobServiceMethod(std::string_view verb, std::string_view kind) {
  return "google.cloud.aiplatform.v1.JobService." + std::string(verb) + std::string(kind) +
         (verb == "List" ? "s" : "");
}

// Each resource's routes: route name and permission "aiplatform.<collection>.<verb>".
void AddResourceRoutes(Router& router, const std::shared_ptr<const Context>& context,
                       const Resource& resource) {
  const std::string name = "aiplatform." + std::string(resource.collection);
  for (const std::string_view version : vertex_internal::kVersions) {
    const std::string jobs = vertex_internal::CollectionPattern(version, resource.collection);
    const std::string job = jobs + "/{jobId}";
    const Resource* r = &resource;
    router.Add(
        {.method = "POST",
         .pattern = jobs,
         .name = name + ".create",
         .handler = [context,
                     r](const RoutedRequest& request) { return Create(*context, *r, request); },
         .access = {{.permission = name + ".create"}},
         .audit = {.service = kAiPlatformService,
                   .method = JobServiceMethod("Create", r->kind),
                   .mutating = true,
                   .resource = AuditResource::kVertexJob}});
    router.Add(
        {.method = "GET",
         .pattern = jobs,
         .name = name + ".list",
         .query_params = {"pageSize", "pageToken", "filter", "readMask"},
         .handler =
             [context, r](const RoutedRequest& request) {
               return vertex_internal::ListJobs(*context->controller, request, r->kind,
                                                r->collection, [&request, r](const model::Job& j) {
                                                  return r->encode(request.Param("project"), j);
                                                });
             },
         .access = {{.permission = name + ".list"}},
         .audit = {.service = kAiPlatformService, .method = JobServiceMethod("List", r->kind)}});
    router.Add({.method = "GET",
                .pattern = job,
                .name = name + ".get",
                .handler = [context,
                            r](const RoutedRequest& request) { return Get(*context, *r, request); },
                .access = {{.permission = name + ".get"}},
                .audit = {.service = kAiPlatformService,
                          .method = JobServiceMethod("Get", r->kind),
                          .resource = AuditResource::kVertexJob}});
    router.Add({.method = "POST",
                .pattern = job + ":cancel",
                .name = name + ".cancel",
                .handler =
                    [context, r](const RoutedRequest& request) {
                      return vertex_internal::CancelJob(*context->controller, request, r->kind);
                    },
                .access = {{.permission = name + ".cancel"}},
                .audit = {.service = kAiPlatformService,
                          .method = JobServiceMethod("Cancel", r->kind),
                          .mutating = true,
                          .resource = AuditResource::kVertexJob}});
  }
}

}  // namespace

void AddVertexRoutes(Router& router, control::JobController& controller,
                     const catalog::Catalog& catalog, VertexOptions options) {
  if (options.host_python_prefixes.empty()) {
    options.host_python_prefixes = vertex::DefaultHostPythonPrefixes();
  }
  const auto context =
      std::make_shared<const Context>(Context{&controller, &catalog, std::move(options)});
  for (const Resource& resource : kResources) {
    AddResourceRoutes(router, context, resource);
  }
}

}  // namespace trainyard::server
