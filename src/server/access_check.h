// Who may call what (issue #17): the one place the server authenticates a request's bearer token
// and checks the caller's grants against what the route needs, before any handler runs.
//
// * Authentication: `Authorization: Bearer ty_…` looked up in the token store (store/
//   token_store.h) on every request, so a revoked token stops working at once. No header, a
//   malformed one, an unknown, revoked or expired token: 401 UNAUTHENTICATED (with
//   `WWW-Authenticate: Bearer`). `GET /healthz`, the discovery documents (server/discovery.h)
//   and the web console's files (server/console_assets.h, answered before this check) need no
//   token.
// * Authorization: `RouteAccessTable()` says, for every route, the permission it needs
//   (access/data/roles.json) and where the project comes from: the path's `{project}`, the
//   `project` query parameter, the project that owns the path's bucket, the projects an
//   `entries:list` body reads, a Kubernetes path's namespace, or none (server-wide: admin only;
//   or any one project, for what a caller asks about itself; or any caller with a valid token,
//   for Kubernetes discovery). Outside the caller's grants:
//   403 PERMISSION_DENIED, worded as Google words it ("… (or it may not exist)") whether or not
//   the job exists. A bucket's name is global, so a bucket the caller may not see (no
//   storage.buckets.get in its project) is answered as a missing bucket (404), the same as one
//   that does not exist; one it may see but not change is 403.
//
// Errors are in each API's own shape: google.rpc for ml v1, logging v2 and trainyard v1, GCS's
// JSON for storage v1, Kubernetes `Status` for the Kubernetes subset (server/kube_api.h: a
// namespace is the project, and a 403 names the Kubernetes verb and resource). Thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "access/principal.h"
#include "base/clock.h"
#include "server/http_message.h"
#include "server/router.h"
#include "store/audit_store.h"
#include "store/bucket_store.h"
#include "store/token_store.h"

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
  std::string_view verb;      // "create"
  std::string_view group;     // "kubeflow.org"; "" for the core group
  std::string_view resource;  // "tfjobs", "pods/log"
};

struct RouteAccess {
  std::string_view route;       // Route::name
  std::string_view permission;  // a permission of access/data/roles.json ("" for kAnyCaller)
  ProjectFrom from = ProjectFrom::kPathProject;
  // kBucket: the path variable naming the bucket; kNamespace: the one naming the namespace
  std::string_view variable = "bucket";
  KubeVerb kube{};  // kNamespace: what the 403 names
};

// The verb a Kubernetes 403 and audit record name for `request` on `row`'s route.
std::string_view KubeVerbOf(const RouteAccess& row, const RoutedRequest& request);

// What every route needs; a route may have several rows (a rewrite reads one bucket and writes
// another), all of which must allow the call. A route with no row is refused (fail closed).
std::span<const RouteAccess> RouteAccessTable();

// What the server checks at start: each of `route_names` has an access row and an audit row
// (server/audit_trail.cc), and every row names a permission roles.json knows. The problems
// found, worded for the operator; empty when there are none. `open` routes (healthz, Google's
// discovery documents) need no rows.
std::vector<std::string> RouteTableProblems(const std::vector<std::string>& route_names,
                                            const std::function<bool(std::string_view)>& open);

// How an API words its errors.
enum class ErrorDialect { kGoogle, kStorage, kKubernetes };
ErrorDialect DialectOf(std::string_view target);

// What the server checks callers against; `tokens` unset: it checks nobody.
struct ServerAccess {
  const store::TokenStore* tokens = nullptr;  // people's and robots' tokens
  // A replica's own token ("tyj.…", store/job_tokens.h): the caller it stands for, or nullopt
  // when it is not one or its job has ended. Unset: such tokens are refused.
  std::function<std::optional<access::Principal>(std::string_view token)> job_tokens;
  // Where calls that change something, and refused calls, are recorded (server/audit_trail.h),
  // tokens or not; unset: nowhere.
  store::AuditStore* audit = nullptr;
};

class AccessControl {
 public:
  // `access.tokens` must be set; `buckets` may be null (no storage API). The collaborators must
  // outlive this.
  AccessControl(ServerAccess access, const store::BucketStore* buckets, const Clock& clock);

  // Whether `request` may be answered without a token (GET /healthz, a discovery document).
  static bool IsOpen(const HttpRequest& request);

  // The caller of `request`, or the 401 answer in the request's dialect.
  std::variant<access::Principal, HttpResponse> Authenticate(const HttpRequest& request) const;

  // nullopt when `principal` may call the routed request; else the refusal (403, or 404 for a
  // bucket it may not know of). A store error reading a bucket's owner is a 500/503.
  std::optional<HttpResponse> Authorize(const access::Principal& principal,
                                        const RoutedRequest& request) const;

 private:
  ServerAccess access_;
  const store::BucketStore* buckets_;
  const Clock& clock_;
};

// The 403 answer for `permission` denied on `resource` ("projects/p/jobs/j") in `dialect`.
HttpResponse PermissionDenied(ErrorDialect dialect, std::string_view who,
                              std::string_view permission, std::string_view resource);

}  // namespace trainyard::server
