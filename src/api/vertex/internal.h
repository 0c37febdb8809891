// Internal to api/vertex/*: what the CustomJob and HyperparameterTuningJob handlers share.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "catalog/catalog.h"
#include "control/job_controller.h"
#include "model/job.h"
#include "server/http_message.h"
#include "server/router.h"

namespace trainyard::server::vertex_internal {

// "/v1/projects/{project}/locations/{location}/<collection>" and the v1beta1 twin.
inline constexpr std::string_view kVersions[] = {"v1", "v1beta1"};
std::string CollectionPattern(std::string_view version, std::string_view collection);

// A JSON body of the right Content-Type, or why not.
Status CheckJsonBody(const HttpRequest& request);

// The stored job a path names, if it is a Vertex resource of `kind` in the path's location;
// NOT_FOUND otherwise, in Vertex's words.
Result<model::Job> FindJob(const control::JobController& controller, const RoutedRequest& request,
                           std::string_view kind);

// list: `pageSize`, `pageToken`, `filter` (the Vertex dialect) over the kind and location.
HttpResponse ListJobs(const control::JobController& controller, const RoutedRequest& request,
                      std::string_view kind, std::string_view list_key,
                      const std::function<nlohmann::ordered_json(const model::Job&)>& encode);

// cancel: the body is `{}` (CancelCustomJobRequest has only the name); answers Empty.
HttpResponse CancelJob(control::JobController& controller, const RoutedRequest& request,
                       std::string_view kind);

HttpResponse JsonAnswer(const nlohmann::ordered_json& value);

}  // namespace trainyard::server::vertex_internal
