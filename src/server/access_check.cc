#include "server/access_check.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "access/audit.h"
#include "base/time_format.h"
#include "kube/tfjob_validate.h"
#include "server/audit_trail.h"
#include "server/discovery.h"
#include "server/kube_api.h"
#include "server/logging_v2_handlers.h"
#include "server/rpc_error.h"
#include "server/storage_v1_json.h"
#include "store/job_tokens.h"

namespace trainyard::server {
namespace {

using access::Principal;

// A Kubernetes route's row: its project is the path's namespace.
constexpr RouteAccess InNamespace(std::string_view route, std::string_view permission,
                                  KubeVerb kube) {
  return RouteAccess{route, permission, ProjectFrom::kNamespace, "namespace", kube};
}

constexpr std::array kRouteAccess = {
    // ml v1 (and trainyard v1's view of a running job)
    RouteAccess{"jobs.create", "ml.jobs.create"},
    RouteAccess{"jobs.list", "ml.jobs.list"},
    RouteAccess{"jobs.get", "ml.jobs.get"},
    RouteAccess{"jobs.patch", "ml.jobs.update"},
    RouteAccess{"jobs.cancel", "ml.jobs.cancel"},
    RouteAccess{"projects.getConfig", "ml.projects.getConfig"},
    RouteAccess{"trainyard.jobs.replicas", "ml.jobs.get"},
    RouteAccess{"trainyard.jobs.suspend", "ml.jobs.suspend"},
    RouteAccess{"trainyard.jobs.resume", "ml.jobs.suspend"},
    RouteAccess{"trainyard.jobs.getSuspension", "ml.jobs.get"},
    // Vertex AI (aiplatform v1, v1beta1)
    RouteAccess{"aiplatform.customJobs.create", "aiplatform.customJobs.create"},
    RouteAccess{"aiplatform.customJobs.list", "aiplatform.customJobs.list"},
    RouteAccess{"aiplatform.customJobs.get", "aiplatform.customJobs.get"},
    RouteAccess{"aiplatform.customJobs.cancel", "aiplatform.customJobs.cancel"},
    RouteAccess{"aiplatform.hyperparameterTuningJobs.create",
                "aiplatform.hyperparameterTuningJobs.create"},
    RouteAccess{"aiplatform.hyperparameterTuningJobs.list",
                "aiplatform.hyperparameterTuningJobs.list"},
    RouteAccess{"aiplatform.hyperparameterTuningJobs.get",
                "aiplatform.hyperparameterTuningJobs.get"},
    RouteAccess{"aiplatform.hyperparameterTuningJobs.cancel",
                "aiplatform.hyperparameterTuningJobs.cancel"},
    RouteAccess{"trainyard.cluster.get", "ml.jobs.list"},
    RouteAccess{"trainyard.caller.get", "ml.jobs.list", ProjectFrom::kAnyProject},
    // trainyard v1's sharing policy (issue #34): read by viewers, changed by admins
    RouteAccess{"trainyard.sharing.get", "trainyard.quotas.list", ProjectFrom::kAnyProject},
    RouteAccess{"trainyard.quotas.get", "trainyard.quotas.get"},
    RouteAccess{"trainyard.quotas.update", "trainyard.quotas.update"},
    RouteAccess{"trainyard.quotas.delete", "trainyard.quotas.delete"},
    RouteAccess{"trainyard.priorityClasses.list", "trainyard.priorityClasses.list",
                ProjectFrom::kAnyProject},
    RouteAccess{"trainyard.priorityClasses.update", "trainyard.priorityClasses.update",
                ProjectFrom::kServer},
    RouteAccess{"trainyard.priorityClasses.delete", "trainyard.priorityClasses.delete",
                ProjectFrom::kServer},
    // logging v2
    RouteAccess{"entries.list", "logging.logEntries.list", ProjectFrom::kLogRequest},
    // storage v1
    RouteAccess{"storage.buckets.insert", "storage.buckets.create", ProjectFrom::kQueryProject},
    RouteAccess{"storage.buckets.list", "storage.buckets.list", ProjectFrom::kQueryProject},
    RouteAccess{"storage.buckets.get", "storage.buckets.get", ProjectFrom::kBucket},
    RouteAccess{"storage.buckets.getStorageLayout", "storage.buckets.get", ProjectFrom::kBucket},
    RouteAccess{"storage.buckets.delete", "storage.buckets.delete", ProjectFrom::kBucket},
    RouteAccess{"storage.buckets.patch", "storage.buckets.update", ProjectFrom::kBucket},
    RouteAccess{"storage.buckets.update", "storage.buckets.update", ProjectFrom::kBucket},
    RouteAccess{"storage.objects.list", "storage.objects.list", ProjectFrom::kBucket},
    RouteAccess{"storage.managedFolders.list", "storage.objects.list", ProjectFrom::kBucket},
    RouteAccess{"storage.objects.get", "storage.objects.get", ProjectFrom::kBucket},
    RouteAccess{"storage.objects.insert", "storage.objects.create", ProjectFrom::kBucket},
    RouteAccess{"storage.objects.upload", "storage.objects.create", ProjectFrom::kBucket},
    RouteAccess{"storage.objects.cancelUpload", "storage.objects.create", ProjectFrom::kBucket},
    RouteAccess{"storage.objects.delete", "storage.objects.delete", ProjectFrom::kBucket},
    RouteAccess{"storage.objects.patch", "storage.objects.update", ProjectFrom::kBucket},
    RouteAccess{"storage.objects.compose", "storage.objects.get", ProjectFrom::kBucket},
    RouteAccess{"storage.objects.compose", "storage.objects.create", ProjectFrom::kBucket},
    RouteAccess{"storage.objects.rewrite", "storage.objects.get", ProjectFrom::kBucket,
                "sourceBucket"},
    RouteAccess{"storage.objects.rewrite", "storage.objects.create", ProjectFrom::kBucket,
                "destinationBucket"},
    // the server's own
    RouteAccess{"metrics", "trainyard.metrics.get", ProjectFrom::kServer},
    // Kubernetes (server/kube_api.h): discovery and namespaces need only a valid token; each
    // verb names the Kubernetes verb and resource of its 403
    RouteAccess{"kube.version", "", ProjectFrom::kAnyCaller},
    RouteAccess{"kube.discovery", "", ProjectFrom::kAnyCaller},
    RouteAccess{"kube.openapi", "", ProjectFrom::kAnyCaller},
    RouteAccess{"core.namespaces.list", "", ProjectFrom::kAnyCaller},
    RouteAccess{"core.namespaces.get", "", ProjectFrom::kAnyCaller},
    InNamespace("kubeflow.tfjobs.list", "ml.jobs.list", {"list", "kubeflow.org", "tfjobs"}),
    InNamespace("kubeflow.tfjobs.create", "ml.jobs.create", {"create", "kubeflow.org", "tfjobs"}),
    InNamespace("kubeflow.tfjobs.get", "ml.jobs.get", {"get", "kubeflow.org", "tfjobs"}),
    InNamespace("kubeflow.tfjobs.getStatus", "ml.jobs.get", {"get", "kubeflow.org", "tfjobs"}),
    InNamespace("kubeflow.tfjobs.update", "ml.jobs.update", {"update", "kubeflow.org", "tfjobs"}),
    InNamespace("kubeflow.tfjobs.patch", "ml.jobs.update", {"patch", "kubeflow.org", "tfjobs"}),
    InNamespace("kubeflow.tfjobs.delete", "ml.jobs.cancel", {"delete", "kubeflow.org", "tfjobs"}),
    InNamespace("core.pods.list", "ml.jobs.list", {"list", "", "pods"}),
    InNamespace("core.pods.get", "ml.jobs.get", {"get", "", "pods"}),
    InNamespace("core.pods.getStatus", "ml.jobs.get", {"get", "", "pods/status"}),
    InNamespace("core.pods.log", "logging.logEntries.list", {"get", "", "pods/log"}),
    InNamespace("core.events.list", "logging.logEntries.list", {"list", "", "events"}),
};

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

std::span<const RouteAccess> RouteAccessTable() {
  return kRouteAccess;
}

std::string_view KubeVerbOf(const RouteAccess& row, const RoutedRequest& request) {
  return row.kube.verb == "list" && KubeWatches(request) ? "watch" : row.kube.verb;
}

std::vector<std::string> RouteTableProblems(const std::vector<std::string>& route_names,
                                            const std::function<bool(std::string_view)>& open) {
  std::vector<std::string> problems;
  for (const RouteAccess& row : kRouteAccess) {
    const bool any_caller = row.from == ProjectFrom::kAnyCaller;
    if (any_caller ? !row.permission.empty() : !access::IsKnownPermission(row.permission)) {
      problems.push_back(fmt::format("route {} names the unknown permission {}", Quoted(row.route),
                                     Quoted(row.permission)));
    }
  }
  for (const std::string& name : route_names) {
    if (open && open(name)) {
      continue;
    }
    if (std::ranges::none_of(kRouteAccess,
                             [&](const RouteAccess& row) { return row.route == name; })) {
      problems.push_back(
          fmt::format("route {} has no access rule (server/access_check.cc)", Quoted(name)));
    }
    if (FindRouteAudit(name) == nullptr) {
      problems.push_back(
          fmt::format("route {} has no audit row (server/audit_trail.cc)", Quoted(name)));
    }
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

bool AccessControl::IsOpen(const HttpRequest& request) {
  const std::string_view target = request.target;
  const std::string_view path = target.substr(0, target.find('?'));
  // Google's discovery documents are public (server/discovery.h).
  return request.method == "GET" && (path == "/healthz" || IsDiscoveryPath(path));
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
  bool listed = false;
  for (const RouteAccess& row : kRouteAccess) {
    if (row.route != request.route) {
      continue;
    }
    listed = true;
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
  if (!listed) {  // a route the table forgot: refused rather than open
    return ErrorResponse(Status::PermissionDenied(
        fmt::format("The route {} has no access rule; refusing it.", Quoted(request.route))));
  }
  return std::nullopt;
}

}  // namespace trainyard::server
