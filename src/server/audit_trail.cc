#include "server/audit_trail.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "server/access_check.h"
#include "server/json_member.h"
#include "server/kube_api.h"
#include "server/logging_v2_handlers.h"

namespace trainyard::server {
namespace {

using access::AuditEvent;

constexpr std::string_view kMl = "ml.googleapis.com";
constexpr std::string_view kStorage = "storage.googleapis.com";
constexpr std::string_view kLogging = "logging.googleapis.com";
constexpr std::string_view kTrainyard = "trainyard";
constexpr std::string_view kAiPlatform = "aiplatform.googleapis.com";
constexpr std::string_view kKubernetes = "k8s.io";

// Google's names for each call (the methodName its audit logs carry), and what it changes.
constexpr std::array kRouteAudit = {
    RouteAudit{"jobs.create", kMl, "google.cloud.ml.v1.JobService.CreateJob", true,
               AuditResource::kJob},
    RouteAudit{"jobs.list", kMl, "google.cloud.ml.v1.JobService.ListJobs", false,
               AuditResource::kProject},
    RouteAudit{"jobs.get", kMl, "google.cloud.ml.v1.JobService.GetJob", false, AuditResource::kJob},
    RouteAudit{"jobs.patch", kMl, "google.cloud.ml.v1.JobService.UpdateJob", true,
               AuditResource::kJob},
    RouteAudit{"jobs.cancel", kMl, "google.cloud.ml.v1.JobService.CancelJob", true,
               AuditResource::kJob},
    RouteAudit{"projects.getConfig", kMl, "google.cloud.ml.v1.ProjectManagementService.GetConfig",
               false, AuditResource::kProject},
    RouteAudit{"trainyard.jobs.replicas", kTrainyard, "trainyard.v1.JobService.ListReplicas", false,
               AuditResource::kJob},
    RouteAudit{"trainyard.jobs.suspend", kTrainyard, "trainyard.v1.JobService.SuspendJob", true,
               AuditResource::kJob},
    RouteAudit{"trainyard.jobs.resume", kTrainyard, "trainyard.v1.JobService.ResumeJob", true,
               AuditResource::kJob},
    RouteAudit{"trainyard.jobs.getSuspension", kTrainyard, "trainyard.v1.JobService.GetSuspension",
               false, AuditResource::kJob},
    RouteAudit{"aiplatform.customJobs.create", kAiPlatform,
               "google.cloud.aiplatform.v1.JobService.CreateCustomJob", true,
               AuditResource::kVertexJob},
    RouteAudit{"aiplatform.customJobs.list", kAiPlatform,
               "google.cloud.aiplatform.v1.JobService.ListCustomJobs", false,
               AuditResource::kProject},
    RouteAudit{"aiplatform.customJobs.get", kAiPlatform,
               "google.cloud.aiplatform.v1.JobService.GetCustomJob", false,
               AuditResource::kVertexJob},
    RouteAudit{"aiplatform.customJobs.cancel", kAiPlatform,
               "google.cloud.aiplatform.v1.JobService.CancelCustomJob", true,
               AuditResource::kVertexJob},
    RouteAudit{"aiplatform.hyperparameterTuningJobs.create", kAiPlatform,
               "google.cloud.aiplatform.v1.JobService.CreateHyperparameterTuningJob", true,
               AuditResource::kVertexJob},
    RouteAudit{"aiplatform.hyperparameterTuningJobs.list", kAiPlatform,
               "google.cloud.aiplatform.v1.JobService.ListHyperparameterTuningJobs", false,
               AuditResource::kProject},
    RouteAudit{"aiplatform.hyperparameterTuningJobs.get", kAiPlatform,
               "google.cloud.aiplatform.v1.JobService.GetHyperparameterTuningJob", false,
               AuditResource::kVertexJob},
    RouteAudit{"aiplatform.hyperparameterTuningJobs.cancel", kAiPlatform,
               "google.cloud.aiplatform.v1.JobService.CancelHyperparameterTuningJob", true,
               AuditResource::kVertexJob},
    RouteAudit{"trainyard.cluster.get", kTrainyard, "trainyard.v1.ClusterService.GetCluster", false,
               AuditResource::kProject},
    RouteAudit{"trainyard.caller.get", kTrainyard, "trainyard.v1.CallerService.GetCaller", false,
               AuditResource::kServer},
    RouteAudit{"trainyard.sharing.get", kTrainyard, "trainyard.v1.SharingService.GetSharingPolicy",
               false, AuditResource::kServer},
    RouteAudit{"trainyard.quotas.get", kTrainyard, "trainyard.v1.SharingService.GetQuota", false,
               AuditResource::kProject},
    RouteAudit{"trainyard.quotas.update", kTrainyard, "trainyard.v1.SharingService.UpdateQuota",
               true, AuditResource::kProject},
    RouteAudit{"trainyard.quotas.delete", kTrainyard, "trainyard.v1.SharingService.DeleteQuota",
               true, AuditResource::kProject},
    RouteAudit{"trainyard.priorityClasses.list", kTrainyard,
               "trainyard.v1.SharingService.ListPriorityClasses", false, AuditResource::kServer},
    RouteAudit{"trainyard.priorityClasses.update", kTrainyard,
               "trainyard.v1.SharingService.UpdatePriorityClass", true, AuditResource::kServer},
    RouteAudit{"trainyard.priorityClasses.delete", kTrainyard,
               "trainyard.v1.SharingService.DeletePriorityClass", true, AuditResource::kServer},
    RouteAudit{"entries.list", kLogging, "google.logging.v2.LoggingServiceV2.ListLogEntries", false,
               AuditResource::kProject},
    RouteAudit{"storage.buckets.insert", kStorage, "storage.buckets.create", true,
               AuditResource::kBucket},
    RouteAudit{"storage.buckets.list", kStorage, "storage.buckets.list", false,
               AuditResource::kProject},
    RouteAudit{"storage.buckets.get", kStorage, "storage.buckets.get", false,
               AuditResource::kBucket},
    RouteAudit{"storage.buckets.getStorageLayout", kStorage, "storage.buckets.getStorageLayout",
               false, AuditResource::kBucket},
    RouteAudit{"storage.buckets.delete", kStorage, "storage.buckets.delete", true,
               AuditResource::kBucket},
    RouteAudit{"storage.buckets.patch", kStorage, "storage.buckets.update", true,
               AuditResource::kBucket},
    RouteAudit{"storage.buckets.update", kStorage, "storage.buckets.update", true,
               AuditResource::kBucket},
    RouteAudit{"storage.objects.list", kStorage, "storage.objects.list", false,
               AuditResource::kBucket},
    RouteAudit{"storage.managedFolders.list", kStorage, "storage.managedFolders.list", false,
               AuditResource::kBucket},
    RouteAudit{"storage.objects.get", kStorage, "storage.objects.get", false,
               AuditResource::kObject},
    RouteAudit{"storage.objects.insert", kStorage, "storage.objects.create", true,
               AuditResource::kObject},
    RouteAudit{"storage.objects.upload", kStorage, "storage.objects.create", true,
               AuditResource::kObject},
    // Dropping an unfinished upload changes no object.
    RouteAudit{"storage.objects.cancelUpload", kStorage, "storage.objects.create", false,
               AuditResource::kBucket},
    RouteAudit{"storage.objects.delete", kStorage, "storage.objects.delete", true,
               AuditResource::kObject},
    RouteAudit{"storage.objects.patch", kStorage, "storage.objects.update", true,
               AuditResource::kObject},
    RouteAudit{"storage.objects.compose", kStorage, "storage.objects.compose", true,
               AuditResource::kObject},
    RouteAudit{"storage.objects.rewrite", kStorage, "storage.objects.rewrite", true,
               AuditResource::kRewriteTarget},
    RouteAudit{"metrics", kTrainyard, "trainyard.metrics.get", false, AuditResource::kServer},
    // Kubernetes (server/kube_api.h): the methods its API server's audit names
    RouteAudit{"kube.version", kKubernetes, "io.k8s.version.get", false, AuditResource::kServer},
    RouteAudit{"kube.discovery", kKubernetes, "io.k8s.discovery.get", false,
               AuditResource::kServer},
    RouteAudit{"kube.openapi", kKubernetes, "io.k8s.openapi.get", false, AuditResource::kServer},
    RouteAudit{"core.namespaces.list", kKubernetes, "io.k8s.core.v1.namespaces.list", false,
               AuditResource::kKubeObject},
    RouteAudit{"core.namespaces.get", kKubernetes, "io.k8s.core.v1.namespaces.get", false,
               AuditResource::kKubeObject},
    RouteAudit{"kubeflow.tfjobs.list", kKubernetes, "io.k8s.kubeflow.{version}.tfjobs.list", false,
               AuditResource::kKubeObject},
    RouteAudit{"kubeflow.tfjobs.create", kKubernetes, "io.k8s.kubeflow.{version}.tfjobs.create",
               true, AuditResource::kKubeObject},
    RouteAudit{"kubeflow.tfjobs.get", kKubernetes, "io.k8s.kubeflow.{version}.tfjobs.get", false,
               AuditResource::kKubeObject},
    RouteAudit{"kubeflow.tfjobs.getStatus", kKubernetes,
               "io.k8s.kubeflow.{version}.tfjobs.status.get", false, AuditResource::kKubeObject},
    RouteAudit{"kubeflow.tfjobs.update", kKubernetes, "io.k8s.kubeflow.{version}.tfjobs.update",
               true, AuditResource::kKubeObject},
    RouteAudit{"kubeflow.tfjobs.patch", kKubernetes, "io.k8s.kubeflow.{version}.tfjobs.patch", true,
               AuditResource::kKubeObject},
    RouteAudit{"kubeflow.tfjobs.delete", kKubernetes, "io.k8s.kubeflow.{version}.tfjobs.delete",
               true, AuditResource::kKubeObject},
    RouteAudit{"core.pods.list", kKubernetes, "io.k8s.core.v1.pods.list", false,
               AuditResource::kKubeObject},
    RouteAudit{"core.pods.get", kKubernetes, "io.k8s.core.v1.pods.get", false,
               AuditResource::kKubeObject},
    RouteAudit{"core.pods.getStatus", kKubernetes, "io.k8s.core.v1.pods.status.get", false,
               AuditResource::kKubeObject},
    RouteAudit{"core.pods.log", kKubernetes, "io.k8s.core.v1.pods.log.get", false,
               AuditResource::kKubeObject},
    RouteAudit{"core.events.list", kKubernetes, "io.k8s.core.v1.events.list", false,
               AuditResource::kKubeObject},
};

std::string BucketName(std::string_view bucket) {
  return fmt::format("projects/_/buckets/{}", bucket);
}

std::string ObjectName(std::string_view bucket, std::string_view object) {
  return fmt::format("projects/_/buckets/{}/objects/{}", bucket, object);
}

std::string ProjectName(std::string_view project) {
  return fmt::format("projects/{}", project.empty() ? access::kServerWideProject : project);
}

// The resourceName of `routed` before it is answered (what the request itself says).
std::string ResourceOf(const RouteAudit& row, const RoutedRequest& routed,
                       std::string_view project) {
  const auto param = [&](std::string_view name) -> std::string {
    const std::string* value = routed.FindParam(name);
    return value != nullptr ? *value : std::string();
  };
  switch (row.resource) {
    case AuditResource::kProject:
      return ProjectName(project);
    case AuditResource::kJob: {
      std::string job = param("jobId");
      if (job.empty() && routed.http.method == "POST") {
        job = JsonMember(routed.http.body, "jobId");
      }
      return job.empty() ? ProjectName(project) : fmt::format("projects/{}/jobs/{}", project, job);
    }
    case AuditResource::kVertexJob: {
      // The path after the version, without a custom verb: projects/P/locations/L/customJobs/ID.
      std::string_view path = routed.http.target;
      path = path.substr(0, path.find('?'));
      const std::size_t projects = path.find("/projects/");
      if (projects == std::string_view::npos || param("jobId").empty()) {
        return ProjectName(project);
      }
      path = path.substr(projects + 1);
      return std::string(
          path.substr(0, path.rfind(':') > path.rfind('/') ? path.rfind(':') : path.size()));
    }
    case AuditResource::kBucket: {
      std::string bucket = param("bucket");
      if (bucket.empty()) {
        bucket = JsonMember(routed.http.body, "name");
      }
      return bucket.empty() ? ProjectName(project) : BucketName(bucket);
    }
    case AuditResource::kObject: {
      std::string object = param("object");
      if (object.empty()) {
        const std::string* name = routed.Query("name");
        object = name != nullptr ? *name : std::string();
      }
      return object.empty() ? BucketName(param("bucket")) : ObjectName(param("bucket"), object);
    }
    case AuditResource::kRewriteTarget:
      return ObjectName(param("destinationBucket"), param("destinationObject"));
    case AuditResource::kKubeObject: {
      std::optional<KubePath> path = KubePathOf(routed.http.target);
      return path.has_value() ? std::move(path->resource) : std::string();
    }
    case AuditResource::kServer:
      return "";
  }
  return "";
}

// Where the project of an access-table row comes from, for `routed`; "" when it names none.
std::string ProjectOf(const RouteAccess& row, const RoutedRequest& routed,
                      const store::BucketStore* buckets) {
  switch (row.from) {
    case ProjectFrom::kPathProject: {
      const std::string* project = routed.FindParam("project");
      return project != nullptr ? *project : std::string();
    }
    case ProjectFrom::kQueryProject: {
      const std::string* project = routed.Query("project");
      return project != nullptr ? *project : std::string();
    }
    case ProjectFrom::kBucket: {
      const std::string* name = routed.FindParam(row.variable);
      if (buckets == nullptr || name == nullptr) {
        return {};
      }
      Result<store::BucketInfo> bucket = buckets->GetBucket(*name);
      return bucket.ok() ? bucket->project : std::string();
    }
    case ProjectFrom::kLogRequest: {
      Result<std::vector<std::string>> projects = EntriesListProjects(routed.http.body);
      return projects.ok() && !projects->empty() ? projects->front() : std::string();
    }
    case ProjectFrom::kNamespace: {
      const std::string* namespace_name = routed.FindParam(row.variable);
      return namespace_name != nullptr ? *namespace_name : std::string();
    }
    case ProjectFrom::kServer:
    case ProjectFrom::kAnyProject:
    case ProjectFrom::kAnyCaller:
      return {};
  }
  return {};
}

// A created or written resource's name from the answer (the new job's, bucket's, object's).
std::string ResourceFromAnswer(const RouteAudit& row, const HttpResponse& response,
                               std::string_view project) {
  if (response.status >= 300 || response.body.empty()) {
    return {};
  }
  switch (row.resource) {
    case AuditResource::kJob: {
      const std::string job = JsonMember(response.body, "jobId");
      return job.empty() ? std::string() : fmt::format("projects/{}/jobs/{}", project, job);
    }
    case AuditResource::kVertexJob:
      return JsonMember(response.body, "name");
    case AuditResource::kBucket:
      if (row.route == "storage.buckets.insert") {
        const std::string bucket = JsonMember(response.body, "name");
        return bucket.empty() ? std::string() : BucketName(bucket);
      }
      return {};
    case AuditResource::kObject: {
      const std::string bucket = JsonMember(response.body, "bucket");
      const std::string object = JsonMember(response.body, "name");
      return bucket.empty() || object.empty() ? std::string() : ObjectName(bucket, object);
    }
    case AuditResource::kProject:
    case AuditResource::kRewriteTarget:
    case AuditResource::kServer:
    case AuditResource::kKubeObject:
      return {};
  }
  return {};
}

std::vector<std::string_view> PathParts(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    if (end > start) {
      parts.push_back(path.substr(start, end - start));
    }
    start = end + 1;
  }
  return parts;
}

}  // namespace

std::span<const RouteAudit> RouteAuditTable() {
  return kRouteAudit;
}

const RouteAudit* FindRouteAudit(std::string_view route) {
  const auto it = std::ranges::find(kRouteAudit, route, &RouteAudit::route);
  return it != kRouteAudit.end() ? &*it : nullptr;
}

std::optional<KubePath> KubePathOf(std::string_view target) {
  const std::vector<std::string_view> parts = PathParts(target.substr(0, target.find('?')));
  // /apis/<group>/<version>/… or /api/v1/…: the core group is "core"
  std::size_t at = 0;
  if (parts.size() >= 3 && parts[0] == "apis") {
    at = 2;
  } else if (parts.size() >= 2 && parts[0] == "api") {
    at = 1;
  } else {
    return std::nullopt;
  }
  KubePath out{.version = std::string(parts[at]),
               .resource = parts[0] == "api" ? std::string("core") : std::string(parts[1])};
  for (std::size_t i = at; i < parts.size(); ++i) {
    out.resource += "/" + std::string(parts[i]);
  }
  return out;
}

std::string AuditMethodOf(const RouteAudit& row, const RoutedRequest& routed) {
  std::string method(row.method);
  constexpr std::string_view kVersion = "{version}";
  if (const std::size_t at = method.find(kVersion); at != std::string::npos) {
    const std::optional<KubePath> path = KubePathOf(routed.http.target);
    method.replace(at, kVersion.size(), path.has_value() ? path->version : std::string());
  }
  constexpr std::string_view kList = ".list";
  if (row.service == kKubernetes && method.ends_with(kList) && KubeWatches(routed)) {
    method.replace(method.size() - kList.size(), kList.size(), ".watch");
  }
  return method;
}

std::string ErrorMessageOf(const HttpResponse& response) {
  if (response.body.empty() || response.body.size() > (std::size_t{1} << 20)) {
    return {};
  }
  const nlohmann::json document = nlohmann::json::parse(response.body, nullptr, false);
  if (!document.is_object()) {
    return {};
  }
  const nlohmann::json* holder = &document;
  if (const auto error = document.find("error"); error != document.end() && error->is_object()) {
    holder = &*error;
  }
  const auto message = holder->find("message");
  return message != holder->end() && message->is_string() ? message->get<std::string>()
                                                          : std::string();
}

AuditTrail::AuditTrail(store::AuditStore& store, const store::BucketStore* buckets,
                       const Clock& clock, AuditLimits limits)
    : store_(store), buckets_(buckets), clock_(clock), unauthenticated_(clock, limits) {}

bool AuditTrail::MustNote(std::string_view route, bool refused, bool unauthenticated) {
  if (refused || unauthenticated) {
    return true;
  }
  const RouteAudit* row = FindRouteAudit(route);
  return row != nullptr && row->mutating;
}

void AuditTrail::Note(const RoutedRequest& routed, const access::Principal* principal,
                      AuditNote& note) const {
  note.noted = true;
  note.route = std::string(routed.route);
  const RouteAudit* row = FindRouteAudit(routed.route);
  bool first = true;
  for (const RouteAccess& access_row : RouteAccessTable()) {
    if (access_row.route != routed.route) {
      continue;
    }
    std::string project = ProjectOf(access_row, routed, buckets_);
    if (principal != nullptr && !access_row.permission.empty()) {
      const std::string* bucket =
          access_row.from == ProjectFrom::kBucket ? routed.FindParam(access_row.variable) : nullptr;
      std::string resource = bucket != nullptr ? BucketName(*bucket) : ProjectName(project);
      note.authorization.push_back(
          {.resource = std::move(resource),
           .permission = std::string(access_row.permission),
           .granted = access::Allows(*principal, access_row.permission, project)});
    }
    if (first) {
      note.project = std::move(project);
      first = false;
    }
  }
  if (row != nullptr) {
    note.method = AuditMethodOf(*row, routed);
    note.resource = ResourceOf(*row, routed, note.project);
  }
}

std::optional<AuditEvent> AuditTrail::EventOf(const HttpRequest& request,
                                              const HttpResponse& response,
                                              const AuditNote& note) const {
  AuditEvent event{.time = clock_.Now(),
                   .principal = note.principal.value_or(""),
                   .caller_ip = request.remote_address,
                   .user_agent = std::string(request.Header("user-agent")),
                   .authorization = note.authorization,
                   .code = access::CodeOfHttpStatus(response.status)};
  const bool refused =
      note.unauthenticated || note.refused || response.status == 401 || response.status == 403;
  if (!note.noted) {
    return std::nullopt;  // no route: nothing to name (a 401 to an unknown path is not kept)
  }
  const RouteAudit* row = FindRouteAudit(note.route);
  if (row == nullptr || (!row->mutating && !refused)) {
    return std::nullopt;
  }
  // A resumable upload in progress (308), or one begun but not yet written: its last chunk
  // is the object's creation.
  const bool upload_begun = row->route == "storage.objects.insert" && response.status < 300 &&
                            (request.target.starts_with("/resumable/") ||
                             request.target.find("uploadType=resumable") != std::string::npos);
  if (response.status == 308 || upload_begun) {
    return std::nullopt;
  }
  event.project = note.project;
  event.service = row->service;
  event.method = note.method;
  event.resource = ResourceFromAnswer(*row, response, note.project);
  if (event.resource.empty()) {
    event.resource = note.resource;
  }
  if (event.project.empty()) {
    event.project = std::string(access::kServerWideProject);
  }
  if (event.code != Code::kOk) {
    event.message = ErrorMessageOf(response);
  }
  return event;
}

void AuditTrail::Record(const HttpRequest& request, const HttpResponse& response,
                        const AuditNote& note) const {
  std::vector<AuditEvent> events;
  try {
    std::optional<AuditEvent> event = EventOf(request, response, note);
    // A 401's record goes through the limiter; any call writes the summaries that are due.
    if (!event.has_value()) {
      events = unauthenticated_.TakeEnded();
    } else if (note.unauthenticated || response.status == 401) {
      events = unauthenticated_.Admit(*std::move(event));
    } else {
      events = unauthenticated_.TakeEnded();
      events.push_back(*std::move(event));
    }
  } catch (const std::exception& e) {  // allocation: never the request's problem
    fmt::print(stderr, "trainyard: cannot build the audit record: {}\n", e.what());
    return;
  }
  for (const AuditEvent& event : events) {
    if (const Status stored = store_.Append(event); !stored.ok()) {
      fmt::print(stderr, "trainyard: cannot record the audit log entry of {} on {}: {}\n",
                 event.method, event.resource, stored.message());
    }
  }
}

}  // namespace trainyard::server
