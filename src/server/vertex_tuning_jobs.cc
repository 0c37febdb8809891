#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/json_body.h"
#include "server/rpc_error.h"
#include "server/vertex_api.h"
#include "server/vertex_internal.h"
#include "vertex/tuning_job.h"
#include "vertex/vertex_json.h"

namespace trainyard::server {
namespace {

using vertex_internal::JsonAnswer;

struct Context {
  control::JobController* controller;
  const catalog::Catalog* catalog;
  VertexOptions options;
};

// What the resource echoes of its request: the study, the trial spec and the counts.
std::string SpecDocument(std::string_view body) {
  const nlohmann::ordered_json value = nlohmann::ordered_json::parse(body, nullptr, false);
  nlohmann::ordered_json document = nlohmann::ordered_json::object();
  if (value.is_object()) {
    for (const char* key : {"studySpec", "maxTrialCount", "parallelTrialCount",
                            "maxFailedTrialCount", "trialJobSpec"}) {
      if (const auto it = value.find(key); it != value.end() && !it->is_null()) {
        document[key] = *it;
      }
    }
  }
  return document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

HttpResponse Create(const Context& context, const RoutedRequest& request) {
  Status status = CheckJsonBody(request.http);
  if (!status.ok()) {
    return ErrorResponse(status);
  }
  Result<vertex::TuningJob> job = vertex::DecodeTuningJob(request.http.body);
  if (!job.ok()) {
    return ErrorResponse(job.status());
  }
  vertex::MappingContext mapping{.job_id = {},
                                 .kind = std::string(vertex::kTuningJobKind),
                                 .location = request.Param("location"),
                                 .document = SpecDocument(request.http.body),
                                 .host_python_prefixes = context.options.host_python_prefixes,
                                 .catalog = context.catalog};
  std::vector<FieldViolation> violations = vertex::ValidateTuningJob(*job, mapping);
  if (!violations.empty()) {
    return ErrorResponse(Status::InvalidArgument(std::move(violations)));
  }
  const std::string& project = request.Param("project");
  Result<model::Job> submitted = vertex_internal::SubmitWithNewId(
      *context.controller, project, "trialJobSpec", [&](const std::string& id) {
        mapping.job_id = id;
        return vertex::ToJob(*job, mapping);
      });
  if (!submitted.ok()) {
    return ErrorResponse(submitted.status());
  }
  return JsonAnswer(vertex::EncodeTuningJob(project, *submitted));
}

HttpResponse Get(const Context& context, const RoutedRequest& request) {
  Result<model::Job> job =
      vertex_internal::FindJob(*context.controller, request, vertex::kTuningJobKind);
  if (!job.ok()) {
    return ErrorResponse(job.status());
  }
  return JsonAnswer(vertex::EncodeTuningJob(request.Param("project"), *job));
}

}  // namespace

void AddVertexTuningJobRoutes(Router& router, control::JobController& controller,
                              const catalog::Catalog& catalog, const VertexOptions& options) {
  auto context = std::make_shared<Context>(Context{&controller, &catalog, options});
  for (const std::string_view version : vertex_internal::kVersions) {
    const std::string jobs =
        vertex_internal::CollectionPattern(version, "hyperparameterTuningJobs");
    const std::string job = jobs + "/{jobId}";
    router.Add({"POST",
                jobs,
                "aiplatform.hyperparameterTuningJobs.create",
                {},
                [context](const RoutedRequest& r) { return Create(*context, r); }});
    router.Add({"GET",
                jobs,
                "aiplatform.hyperparameterTuningJobs.list",
                {"pageSize", "pageToken", "filter", "readMask"},
                [context](const RoutedRequest& r) {
                  return vertex_internal::ListJobs(
                      *context->controller, r, vertex::kTuningJobKind, "hyperparameterTuningJobs",
                      [&r](const model::Job& j) {
                        return vertex::EncodeTuningJob(r.Param("project"), j);
                      });
                }});
    router.Add({"GET",
                job,
                "aiplatform.hyperparameterTuningJobs.get",
                {},
                [context](const RoutedRequest& r) { return Get(*context, r); }});
    router.Add({"POST",
                job + ":cancel",
                "aiplatform.hyperparameterTuningJobs.cancel",
                {},
                [context](const RoutedRequest& r) {
                  return vertex_internal::CancelJob(*context->controller, r,
                                                    vertex::kTuningJobKind);
                }});
  }
}

}  // namespace trainyard::server
