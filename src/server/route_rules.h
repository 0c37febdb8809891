// What a route needs besides its handler, written in its row (server/router.h `Route`): who may
// call it (api/access_check.h reads `RouteAccess`) and what the audit log calls it
// (api/audit_trail.h reads `RouteAudit`). The router hands the matched route to both, so
// neither looks anything up by the route's name. Plain data: every member has a default, so a
// row names only what it sets.
#pragma once

#include <string>
#include <string_view>

namespace trainyard::server {

// Where a route's project comes from.
enum class ProjectFrom {
  kPathProject,   // the `{project}` path variable
  kQueryProject,  // the `project` query parameter (storage buckets.insert, buckets.list)
  kBucket,        // the project owning the bucket the path variable `variable` names
  kLogRequest,    // the projects an entries:list body reads (resourceNames, else its filter)
  kServer,        // none: the permission spans projects (admin)
  kAnyProject,    // none: the permission in any one project (a route about the caller itself)
  // The Kubernetes namespace the path variable `variable` names; without one (`kubectl -A`), the
  // permission must span projects. A malformed namespace is left to the route to refuse.
  kNamespace,
  kAnyCaller,  // none, and no permission: any authenticated caller (Kubernetes discovery)
};

// What a Kubernetes 403 names, as RBAC words it: `User "u" cannot <verb> resource "<resource>"
// in API group "<group>"`. A "list" is a "watch" when the request watches (`?watch=1`).
struct KubeVerb {
  std::string verb = {};      // "create"
  std::string group = {};     // "kubeflow.org"; "" for the core group
  std::string resource = {};  // "tfjobs", "pods/log"
};

// One permission a route needs. A route may need several (a rewrite reads one bucket and writes
// another); each must allow the call.
struct RouteAccess {
  std::string permission = {};  // a permission of access/data/roles.json ("" for kAnyCaller)
  ProjectFrom from = ProjectFrom::kPathProject;
  // kBucket: the path variable naming the bucket; kNamespace: the one naming the namespace
  std::string variable = "bucket";
  KubeVerb kube = {};  // kNamespace: what the 403 names
};

// How a route's audit resourceName is made.
enum class AuditResource {
  kProject,  // "projects/P" (the route's project, as its first access rule finds it)
  kJob,      // "projects/P/jobs/J" (J: the path's jobId, else the created job's)
  // "projects/P/locations/L/customJobs/ID" (the path's, else the created resource's `name`)
  kVertexJob,
  kBucket,         // "projects/_/buckets/B" (B: the path's bucket, else the created bucket's)
  kObject,         // "projects/_/buckets/B/objects/O" (O: the path's, else the written object's)
  kRewriteTarget,  // the destination object of a rewrite
  kServer,         // "" (the server itself)
  // A Kubernetes path as the API server's audit names it: "kubeflow.org/v1/namespaces/N/tfjobs/X",
  // "core/v1/namespaces/N/pods/X/log" (the core group is "core").
  kKubeObject,
};

// Google's serviceName of each API's audit records.
inline constexpr std::string_view kMlService = "ml.googleapis.com";
inline constexpr std::string_view kAiPlatformService = "aiplatform.googleapis.com";
inline constexpr std::string_view kLoggingService = "logging.googleapis.com";
inline constexpr std::string_view kStorageService = "storage.googleapis.com";
inline constexpr std::string_view kTrainyardService = "trainyard";
inline constexpr std::string_view kKubernetesService = "k8s.io";

// What the audit log calls a route's calls. A call is recorded when its route is `mutating`
// (whatever the outcome) or when it was refused.
struct RouteAudit {
  std::string_view service = {};  // one of the k*Service names above
  // "google.cloud.ml.v1.JobService.CreateJob"; a Kubernetes route's "{version}" is its path's
  // API version ("io.k8s.kubeflow.{version}.tfjobs.create"), and a list that watches is named
  // ".watch" instead of ".list"
  std::string method = {};
  bool mutating = false;
  AuditResource resource = AuditResource::kProject;
};

}  // namespace trainyard::server
