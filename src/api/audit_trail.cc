#include "api/audit_trail.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/access_check.h"
#include "api/kube/api.h"
#include "api/logging/handlers.h"
#include "server/json_member.h"

namespace trainyard::server {
namespace {

using access::AuditEvent;

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
std::string ResourceFromAnswer(const RouteAudit& row, std::string_view route,
                               const HttpResponse& response, std::string_view project) {
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
      if (route == "storage.buckets.insert") {
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
  if (row.service == kKubernetesService && method.ends_with(kList) && KubeWatches(routed)) {
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

bool AuditTrail::MustNote(const RouteAudit& audit, bool refused, bool unauthenticated) {
  return refused || unauthenticated || audit.mutating;
}

void AuditTrail::Note(const RoutedRequest& routed, const access::Principal* principal,
                      AuditNote& note) const {
  note.noted = true;
  note.route = std::string(routed.route);
  if (routed.matched == nullptr) {
    return;
  }
  note.audit = &routed.matched->audit;
  bool first = true;
  for (const RouteAccess& access_row : routed.matched->access) {
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
  note.method = AuditMethodOf(*note.audit, routed);
  note.resource = ResourceOf(*note.audit, routed, note.project);
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
  static const RouteAudit kUnnamed;  // a note made without its route's row
  const RouteAudit& row = note.audit != nullptr ? *note.audit : kUnnamed;
  if (!row.mutating && !refused) {
    return std::nullopt;
  }
  // A resumable upload in progress (308), or one begun but not yet written: its last chunk
  // is the object's creation.
  const bool upload_begun = note.route == "storage.objects.insert" && response.status < 300 &&
                            (request.target.starts_with("/resumable/") ||
                             request.target.find("uploadType=resumable") != std::string::npos);
  if (response.status == 308 || upload_begun) {
    return std::nullopt;
  }
  event.project = note.project;
  event.service = row.service;
  event.method = note.method;
  event.resource = ResourceFromAnswer(row, note.route, response, note.project);
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
