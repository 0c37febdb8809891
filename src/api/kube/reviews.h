// `kubectl auth can-i` (issue #36): SelfSubjectAccessReview and SelfSubjectRulesReview
// (authorization.k8s.io/v1) answered from the access rules of the Kubernetes routes
// (api/kube/api.h `KubeRouteAccess`), the same rows AccessControl::Authorize checks a request
// against, so
// `can-i` and the request itself cannot disagree (tests/api/kube/reviews_test.cc walks every
// Kubernetes route to show it). A question is its verb, group and resource ("pods/log" for a
// subresource) in a namespace; the object's name changes nothing, as trainyard's roles are per
// project. Pure.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "access/principal.h"
#include "api/access_check.h"
#include "server/route_rules.h"

namespace trainyard::server {

// May the caller `verb` `resource` of `group` ("" for the core group) in `namespace_name` (""
// for every namespace)?
struct KubeAccessQuestion {
  std::string verb;      // "create"; "watch" is decided as the route's "list"
  std::string group;     // "kubeflow.org"
  std::string resource;  // "tfjobs", "pods/log"
  std::string namespace_name;
};

struct KubeAccessAnswer {
  bool allowed = false;
  std::string reason;  // why, in words (the review's status.reason)
};

// The access rows of the routes serving `verb` on `resource` of `group`: every Kubernetes row of
// `table` (KubeRouteAccess()) whose KubeVerb names them. Empty when no route serves it.
std::vector<const RouteAccess*> KubeAccessRows(std::span<const RouteAccess> table,
                                               std::string_view verb, std::string_view group,
                                               std::string_view resource);

// The answer for `caller` (nullopt: the server checks no tokens, so anyone may use any route):
// allowed when some route serves the question and each of its rows lets the caller through in
// the namespace, as Authorize would.
KubeAccessAnswer DecideKubeAccess(std::span<const RouteAccess> table,
                                  const std::optional<access::Principal>& caller,
                                  const KubeAccessQuestion& question);

// The paths any caller may GET without a resource (`nonResourceAttributes`): discovery, in
// RBAC's pattern form ("/apis/*").
std::span<const std::string_view> KubeOpenPaths();
// Whether `verb` on non-resource `path` is allowed: a GET of one of KubeOpenPaths().
bool KubeOpenPathAllows(std::string_view verb, std::string_view path);

// One rule of a SelfSubjectRulesReview (`kubectl auth can-i --list`).
struct KubeRule {
  std::string group;
  std::string resource;
  std::vector<std::string> verbs;  // in the table's order; "watch" after each "list"

  friend bool operator==(const KubeRule&, const KubeRule&) = default;
};

// What `caller` may do in `namespace_name`: a rule per resource with the verbs allowed there.
std::vector<KubeRule> KubeRulesIn(std::span<const RouteAccess> table,
                                  const std::optional<access::Principal>& caller,
                                  std::string_view namespace_name);

}  // namespace trainyard::server
