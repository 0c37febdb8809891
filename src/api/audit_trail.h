// The server's side of the activity audit log (issue #17, access/audit.h): which calls are
// recorded, what each is called (Google's serviceName and methodName, in each route's row:
// server/route_rules.h `RouteAudit`), which resource it is about, and the recording.
//
// A call is recorded when its route changes something (whatever the outcome), or when it was
// refused: 401, or the access check's refusal (403, or the 404 of a bucket the caller may not
// know of). The Kubernetes routes name k8s.io's methods. Recording
// never fails a request: a store error is reported on stderr and the answer goes out as it was.
// Records of unauthenticated calls (401) are bounded per client address and project
// (api/audit_limiter.h): past the limit they are summarised. Thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "access/audit.h"
#include "access/principal.h"
#include "api/audit_limiter.h"
#include "base/clock.h"
#include "server/http_message.h"
#include "server/router.h"
#include "store/audit_store.h"
#include "store/bucket_store.h"

namespace trainyard::server {

// What one request was, noted while it is answered.
struct AuditNote {
  bool unauthenticated = false;          // refused with 401
  bool refused = false;                  // refused by the access check
  std::optional<std::string> principal;  // the caller, once known
  // Router calls to record: the route, its audit row, its method name (the row's, "{version}"
  // filled in), its project and resource, and the permissions checked (each access rule of the
  // route, with whether the caller holds it).
  std::string route;
  const RouteAudit* audit = nullptr;  // the router's, which outlives the call
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

  // Whether a call of the route `audit` describes must be noted before its handler runs: it
  // changes something, or was refused (`refused`), or nothing authenticated it.
  static bool MustNote(const RouteAudit& audit, bool refused, bool unauthenticated);

  // Notes `routed`'s project, resource and (for an authenticated `principal`) each permission
  // its route's access rules need, with whether it is held. Runs before the handler, so a
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
