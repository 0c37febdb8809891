// The server's side of the activity audit log (issue #17, access/audit.h): which calls are
// recorded, what each is called (Google's serviceName and methodName, per route, as data beside
// the access table of server/access_check.h), which resource it is about, and the recording.
//
// A call is recorded when its route changes something (whatever the outcome), or when it was
// refused: 401, or the access check's refusal (403, or the 404 of a bucket the caller may not
// know of). The Kubernetes routes have their rows here too (k8s.io's method names). Recording
// never fails a request: a store error is reported on stderr and the answer goes out as it was.
// Records of unauthenticated calls (401) are bounded per client address and project
// (server/audit_limiter.h): past the limit they are summarised. Thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "access/audit.h"
#include "access/principal.h"
#include "base/clock.h"
#include "server/audit_limiter.h"
#include "server/http_message.h"
#include "server/router.h"
#include "store/audit_store.h"
#include "store/bucket_store.h"

namespace trainyard::server {

// How a route's resourceName is made.
enum class AuditResource {
  kProject,  // "projects/P" (the route's project, as the access table finds it)
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

struct RouteAudit {
  std::string_view route;    // Route::name
  std::string_view service;  // "ml.googleapis.com"
  // "google.cloud.ml.v1.JobService.CreateJob"; a Kubernetes route's "{version}" is its path's
  // API version ("io.k8s.kubeflow.{version}.tfjobs.create"), and a list that watches is named
  // ".watch" instead of ".list"
  std::string_view method;
  bool mutating = false;  // recorded whatever the outcome
  AuditResource resource = AuditResource::kProject;
};

// Every route's row (the server checks at start that each route has one, as for access).
std::span<const RouteAudit> RouteAuditTable();
const RouteAudit* FindRouteAudit(std::string_view route);

// What one request was, noted while it is answered.
struct AuditNote {
  bool unauthenticated = false;          // refused with 401
  bool refused = false;                  // refused by the access check
  std::optional<std::string> principal;  // the caller, once known
  // Router calls to record: the route, its method name (its row's, "{version}" filled in), its
  // project and resource, and the permissions checked (each row of the access table, with
  // whether the caller holds it).
  std::string route;
  std::string method;
  std::string project;
  std::string resource;
  std::vector<access::AuthorizationCheck> authorization;
  bool noted = false;  // a router call was noted (Note ran)
};

// A Kubernetes path as its audit record names it: the API version and the resource
// ("kubeflow.org/v1/namespaces/ns/tfjobs/name"); nullopt for a path outside /api/v1 and
// /apis/<group>/<version>.
struct KubePath {
  std::string version;
  std::string resource;
};
std::optional<KubePath> KubePathOf(std::string_view target);

// `row`'s method name for `routed` (see RouteAudit::method).
std::string AuditMethodOf(const RouteAudit& row, const RoutedRequest& routed);

// The message of an error answer's body in any of the server's dialects (google.rpc's and GCS's
// error.message, a Kubernetes Status's message); empty when there is none.
std::string ErrorMessageOf(const HttpResponse& response);

class AuditTrail {
 public:
  // The collaborators must outlive this; `buckets` may be null.
  AuditTrail(store::AuditStore& store, const store::BucketStore* buckets, const Clock& clock,
             AuditLimits limits = {});

  // Whether a routed call must be noted before its handler runs: it changes something, or was
  // refused (`refused`), or nothing authenticated it.
  static bool MustNote(std::string_view route, bool refused, bool unauthenticated);

  // Notes `routed`'s project, resource and (for an authenticated `principal`) each permission
  // the access table says it needs, with whether it is held. Runs before the handler, so a
  // bucket that the call deletes still has its owner.
  void Note(const RoutedRequest& routed, const access::Principal* principal, AuditNote& note) const;

  // Records the answered call when it must be; never fails.
  void Record(const HttpRequest& request, const HttpResponse& response,
              const AuditNote& note) const;

 private:
  std::optional<access::AuditEvent> EventOf(const HttpRequest& request,
                                            const HttpResponse& response,
                                            const AuditNote& note) const;

  store::AuditStore& store_;
  const store::BucketStore* buckets_;
  const Clock& clock_;
  mutable UnauthenticatedAuditLimiter unauthenticated_;
};

}  // namespace trainyard::server
