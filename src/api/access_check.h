// Who may call what (issue #17): the one place the server authenticates a request's bearer token
// and checks the caller's grants against what the route needs, before any handler runs.
//
// * Authentication: `Authorization: Bearer ty_…` looked up in the token store (store/
//   token_store.h) on every request, so a revoked token stops working at once. No header, a
//   malformed one, an unknown, revoked or expired token: 401 UNAUTHENTICATED (with
//   `WWW-Authenticate: Bearer`). `GET /healthz`, the discovery documents (api/discovery.h)
//   and the web console's files (server/console_assets.h, answered before this check) need no
//   token.
// * Authorization: each route's row (server/router.h `Route::access`) says the permissions it
//   needs (access/data/roles.json) and where the project comes from: the path's `{project}`, the
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
// JSON for storage v1, Kubernetes `Status` for the Kubernetes subset (api/kube/api.h: a
// namespace is the project, and a 403 names the Kubernetes verb and resource). Thread-safe.
#pragma once

#include <functional>
#include <optional>
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

// The verb a Kubernetes 403 and audit record name for `request` under `rule`.
std::string_view KubeVerbOf(const RouteAccess& rule, const RoutedRequest& request);

// What the server checks of each route at start (server/route_rules.h): an open route has no
// access rules and no audit method; any other has at least one rule, each naming a permission
// roles.json knows (none for kAnyCaller) and, for a namespace, the Kubernetes verb and resource
// its 403 names; and it has its audit service and method. The problems found, worded for the
// operator; empty when there are none.
std::vector<std::string> RouteProblems(const Route& route);

// How an API words its errors.
enum class ErrorDialect { kGoogle, kStorage, kKubernetes };
ErrorDialect DialectOf(std::string_view target);

// What the server checks callers against; `tokens` unset: it checks nobody.
struct ServerAccess {
  const store::TokenStore* tokens = nullptr;  // people's and robots' tokens
  // A replica's own token ("tyj.…", store/job_tokens.h): the caller it stands for, or nullopt
  // when it is not one or its job has ended. Unset: such tokens are refused.
  std::function<std::optional<access::Principal>(std::string_view token)> job_tokens;
  // Where calls that change something, and refused calls, are recorded (api/audit_trail.h),
  // tokens or not; unset: nowhere.
  store::AuditStore* audit = nullptr;
};

class AccessControl {
 public:
  // `access.tokens` must be set; `buckets` may be null (no storage API). The collaborators must
  // outlive this.
  AccessControl(ServerAccess access, const store::BucketStore* buckets, const Clock& clock);

  // The caller of `request`, or the 401 answer in the request's dialect.
  std::variant<access::Principal, HttpResponse> Authenticate(const HttpRequest& request) const;

  // nullopt when `principal` may call the routed request (each access rule of its route
  // allows it); else the refusal (403, or 404 for a bucket it may not know of). A store error
  // reading a bucket's owner is a 500/503.
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
