#include "api/access_check.h"

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "access/audit.h"
#include "api/kube/api.h"
#include "api/logging/handlers.h"
#include "api/storage/json.h"
#include "base/time_format.h"
#include "kube/tfjob_validate.h"
#include "server/rpc_error.h"
#include "store/job_tokens.h"

namespace trainyard::server {
namespace {

using access::Principal;

constexpr std::string_view kGoogleUnauthenticated =
    "Request is missing required authentication credential. Expected a trainyard access token "
    "as \"Authorization: Bearer <token>\" (trainyard auth create-token; gcloud config set "
    "auth/access_token_file FILE).";

HttpResponse Unauthenticated(ErrorDialect dialect, std::string message) {
  HttpResponse response;
  switch (dialect) {
    case ErrorDialect::kGoogle:
      response = ErrorResponse(Status::Unauthenticated(std::move(message)));
      break;
    case ErrorDialect::kStorage:
      response = StorageErrorResponse(Status::Unauthenticated(std::move(message)));
      break;
    case ErrorDialect::kKubernetes:
      response = KubeUnauthorized();
      break;
  }
  response.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"trainyard\"");
  return response;
}

std::string Quoted(std::string_view name) {
  return "\"" + std::string(name) + "\"";
}

}  // namespace

std::string_view KubeVerbOf(const RouteAccess& rule, const RoutedRequest& request) {
  const std::string_view verb = rule.kube.verb;
  return verb == "list" && KubeWatches(request) ? "watch" : verb;
}

std::vector<std::string> RouteProblems(const Route& route) {
  std::vector<std::string> problems;
  const std::string name = Quoted(route.name);
  if (route.open) {
    if (!route.access.empty() || !route.audit.method.empty()) {
      problems.push_back(
          fmt::format("route {} is open to anyone yet has access rules or an audit method", name));
    }
    return problems;
  }
  if (route.access.empty()) {
    problems.push_back(fmt::format("route {} has no access rule", name));
  }
  for (const RouteAccess& rule : route.access) {
    const bool any_caller = rule.from == ProjectFrom::kAnyCaller;
    if (any_caller ? !rule.permission.empty() : !access::IsKnownPermission(rule.permission)) {
      problems.push_back(
          fmt::format("route {} names the unknown permission {}", name, Quoted(rule.permission)));
    }
    if (rule.from == ProjectFrom::kNamespace &&
        (rule.kube.verb.empty() || rule.kube.resource.empty())) {
      problems.push_back(fmt::format(
          "route {} takes its project from a namespace but names no Kubernetes verb and resource",
          name));
    }
  }
  if (route.audit.service.empty() || route.audit.method.empty()) {
    problems.push_back(fmt::format("route {} has no audit service and method", name));
  }
  return problems;
}

ErrorDialect DialectOf(std::string_view target) {
  for (const std::string_view prefix :
       {"/storage/", "/upload/", "/resumable/upload/", "/download/"}) {
    if (target.starts_with(prefix)) {
      return ErrorDialect::kStorage;
    }
  }
  return KubeApi::Serves(target) ? ErrorDialect::kKubernetes : ErrorDialect::kGoogle;
}

HttpResponse PermissionDenied(ErrorDialect dialect, std::string_view who,
                              std::string_view permission, std::string_view resource) {
  switch (dialect) {
    case ErrorDialect::kStorage:
      return StorageErrorResponse(Status::PermissionDenied(
          fmt::format("{} does not have {} access to {}. Permission '{}' denied on resource (or "
                      "it may not exist).",
                      who, permission, resource, permission)));
    case ErrorDialect::kGoogle:
    case ErrorDialect::kKubernetes:
      break;
  }
  return ErrorResponse(Status::PermissionDenied(fmt::format(
      "Permission '{}' denied on resource '{}' (or it may not exist).", permission, resource)));
}

AccessControl::AccessControl(ServerAccess access, const store::BucketStore* buckets,
                             const Clock& clock)
    : access_(std::move(access)), buckets_(buckets), clock_(clock) {
  TY_CHECK(access_.tokens != nullptr) << "AccessControl without a token store";
}

std::variant<Principal, HttpResponse> AccessControl::Authenticate(
    const HttpRequest& request) const {
  const ErrorDialect dialect = DialectOf(request.target);
  const access::Credential credential = access::ParseAuthorization(request.Header("authorization"));
  switch (credential.kind) {
    case access::Credential::Kind::kNone:
      return Unauthenticated(dialect, std::string(kGoogleUnauthenticated));
    case access::Credential::Kind::kMalformed:
      return Unauthenticated(dialect,
                             "Request had invalid authentication credentials: the Authorization "
                             "header is not \"Bearer <token>\".");
    case access::Credential::Kind::kBearer:
      break;
  }
  const auto invalid = [&] {
    return Unauthenticated(dialect,
                           "Request had invalid authentication credentials: the token is not "
                           "one this server issued, or it was revoked.");
  };
  if (credential.token.starts_with(store::kJobTokenPrefix)) {
    std::optional<Principal> job =
        access_.job_tokens ? access_.job_tokens(credential.token) : std::nullopt;
    if (!job) {
      return Unauthenticated(dialect,
                             "Request had invalid authentication credentials: a job's token "
                             "works only while its job runs, on the server that started it.");
    }
    return *std::move(job);
  }
  if (!access::IsTokenSyntax(credential.token)) {
    return invalid();
  }
  Result<store::TokenInfo> token = access_.tokens->Find(credential.token);
  if (!token.ok()) {
    if (token.status().code() == Code::kNotFound) {
      return invalid();
    }
    return ErrorResponse(token.status());
  }
  if (token->expire_time && *token->expire_time <= clock_.Now()) {
    return Unauthenticated(dialect, fmt::format("Request had invalid authentication credentials: "
                                                "the token {} expired at {}.",
                                                token->name, FormatTimestamp(*token->expire_time)));
  }
  return Principal{.name = token->name, .grants = std::move(token->grants)};
}

std::optional<HttpResponse> AccessControl::Authorize(const Principal& principal,
                                                     const RoutedRequest& request) const {
  const ErrorDialect dialect = DialectOf(request.http.target);
  const std::span<const RouteAccess> rules =
      request.matched != nullptr ? std::span<const RouteAccess>(request.matched->access)
                                 : std::span<const RouteAccess>();
  for (const RouteAccess& row : rules) {
    std::vector<std::string> projects;
    std::string resource;
    switch (row.from) {
      case ProjectFrom::kPathProject: {
        const std::string& project = request.Param("project");
        projects.push_back(project);
        resource = "projects/" + project;
        if (const std::string* job = request.FindParam("jobId")) {
          resource += "/jobs/" + *job;
        }
        break;
      }
      case ProjectFrom::kQueryProject: {
        const std::string* project = request.Query("project");
        if (project == nullptr || project->empty()) {
          continue;  // the handler answers the missing parameter
        }
        projects.push_back(*project);
        resource = "the Google Cloud Storage project " + *project;
        break;
      }
      case ProjectFrom::kBucket: {
        if (buckets_ == nullptr) {
          continue;
        }
        const std::string& name = request.Param(row.variable);
        Result<store::BucketInfo> bucket = buckets_->GetBucket(name);
        if (!bucket.ok()) {
          if (bucket.status().code() == Code::kNotFound ||
              bucket.status().code() == Code::kInvalidArgument) {
            continue;  // the handler answers it as it answers anyone
          }
          return StorageErrorResponse(bucket.status());
        }
        if (access::Allows(principal, row.permission, bucket->project)) {
          continue;
        }
        if (access::Allows(principal, "storage.buckets.get", bucket->project)) {
          return PermissionDenied(dialect, principal.name, row.permission, "bucket " + name);
        }
        // Not "forbidden": that would say the bucket exists in a project the caller is not in.
        return StorageErrorResponse(Status::NotFound("The specified bucket does not exist."));
      }
      case ProjectFrom::kLogRequest: {
        Result<std::vector<std::string>> read = EntriesListProjects(request.http.body);
        if (!read.ok()) {
          continue;  // the handler answers the malformed request
        }
        projects = *std::move(read);
        break;
      }
      case ProjectFrom::kServer:
        projects.emplace_back();
        resource = "the trainyard server";
        break;
      case ProjectFrom::kAnyProject:
        if (std::ranges::any_of(principal.grants, [&](const access::Grant& grant) {
              return access::Allows(principal, row.permission, grant.project);
            })) {
          continue;
        }
        return PermissionDenied(dialect, principal.name, row.permission, "any project");
      case ProjectFrom::kNamespace: {
        const std::string* found = request.FindParam(row.variable);
        const std::string namespace_name = found != nullptr ? *found : std::string();
        if (!namespace_name.empty() && !kube::IsDns1123Label(namespace_name)) {
          continue;  // the route refuses the malformed namespace as it does for anyone
        }
        if (access::Allows(principal, row.permission, namespace_name)) {
          continue;
        }
        const std::string* name = request.FindParam("name");
        return KubeForbidden(principal.name, KubeVerbOf(row, request), row.kube.group,
                             row.kube.resource, name != nullptr ? *name : std::string(),
                             namespace_name);
      }
      case ProjectFrom::kAnyCaller:
        continue;
    }
    for (const std::string& project : projects) {
      if (!access::Allows(principal, row.permission, project)) {
        if (row.from == ProjectFrom::kLogRequest) {
          resource =
              "projects/" + (project.empty() ? std::string(access::kServerWideProject) : project);
        }
        return PermissionDenied(dialect, principal.name, row.permission, resource);
      }
    }
  }
  if (rules.empty()) {  // a route without rules: refused rather than open
    return ErrorResponse(Status::PermissionDenied(
        fmt::format("The route {} has no access rule; refusing it.", Quoted(request.route))));
  }
  return std::nullopt;
}

}  // namespace trainyard::server
