// Method + path-template routing in the style of google.api.http rules:
// "/v1/projects/{project}/jobs/{jobId}:cancel". Variables match one non-empty path segment and
// reach the handler percent-decoded (and checked by `DecodePathSegment`); a ":verb" suffix is
// split off the last segment, so "jobs/x:cancel" is the cancel route, not a job named
// "x:cancel". A last variable written `{name=**}` matches the rest of the path, one segment or
// more, and reaches the handler decoded by `DecodePathRest`: it may hold "/" (GCS object names,
// sent as "a%2Fb" or "a/b"), and its handler checks what else it may hold.
//
// Unknown paths are 404 and a known path with another method is 405 (with `Allow`), both as
// google.rpc errors unless the path's API words them its own way (`AddDialect`: the Kubernetes
// paths answer in `Status` objects). Query parameters a route does not declare are
// INVALID_ARGUMENT, except the standard ones every Google API accepts (`alt`, `prettyPrint`,
// `fields`, `$.xgafv`, `key`, `quotaUser`, …), which are ignored unless the route declares them
// (the storage API reads `alt` and `uploadType`). Each route's row also says who may call it and
// what the audit log calls it (server/route_rules.h); the router hands the matched row to the
// access check and the handler. Add every route before serving; `Dispatch` is then thread-safe
// (the handlers must be too).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "server/http_message.h"
#include "server/route_rules.h"

namespace trainyard::server {

struct Route;

// What a handler sees of its request.
struct RoutedRequest {
  const HttpRequest& http;
  std::string_view route;                                   // the route's name, e.g. "jobs.create"
  std::vector<std::pair<std::string, std::string>> params;  // decoded path variables
  std::vector<std::pair<std::string, std::string>> query;   // the route's own parameters
  const Route* matched = nullptr;  // the route's row (set by `Router::Dispatch`)

  // The variable `name` of the route's pattern (always present).
  const std::string& Param(std::string_view name) const;
  // The variable `name`, or nullptr when this route's pattern has none (code that serves several
  // routes: the access check, the audit trail).
  const std::string* FindParam(std::string_view name) const;
  // The last value given for query parameter `name`; nullptr when absent.
  const std::string* Query(std::string_view name) const;
};

// One route: what it matches, what answers it, who may call it and what the audit log calls it.
// Written with designated initializers; the server refuses to start if a row lacks its access
// rules or audit method, or names a permission roles.json does not know
// (api/access_check.h `RouteProblems`).
struct Route {
  std::string method;                          // "GET"
  std::string pattern;                         // "/v1/projects/{project}/jobs"
  std::string name;                            // the metrics label, e.g. "jobs.list"
  std::vector<std::string> query_params = {};  // accepted besides the standard ones
  std::function<HttpResponse(const RoutedRequest&)> handler;
  // Every variable is decoded by `DecodePathRest`: it may hold "/" sent as %2F (a GCS object
  // name in the middle of a path), and the handler checks what else it may hold.
  bool slashes_in_variables = false;
  std::vector<RouteAccess> access = {};  // each must allow the caller; none: refused to all
  RouteAudit audit = {};
  // Answered to anyone, without a token, and never audited (/healthz, discovery documents):
  // such a route has no access rules and no audit method.
  bool open = false;
};

// A refusal the router gives before any handler runs: 400 (a malformed target or path variable,
// an undeclared query parameter), 404 (no route has the path) or 405 (none has it for the
// method). `status` is the google.rpc wording; `allowed` the methods the path has (405).
struct RouterRefusal {
  int http_status = 400;
  Status status;
  std::string_view method;
  std::string_view path;  // the target's path ("" when the target is malformed)
  std::vector<std::string> allowed;
};

// How the API under some path roots answers the router's refusals, and whether its routes take
// any query parameter (Kubernetes ignores the ones a verb does not read).
struct ApiDialect {
  std::vector<std::string> roots;  // "/apis": the path "/apis" and every path under "/apis/"
  std::function<HttpResponse(const RouterRefusal&)> refuse;
  bool any_query = false;  // every query parameter reaches the handler in `RoutedRequest::query`
};

// Whether `target`'s path is `root` or under it ("/apis" serves "/apis" and "/apis/x", not
// "/apisx").
bool UnderRoot(std::string_view target, std::string_view root);

// Asked before a matched route's handler runs (issue #17): nullopt lets the request through,
// an answer refuses it (401, 403, or the 404 of a resource the caller may not know of).
using AccessCheck = std::function<std::optional<HttpResponse>(const RoutedRequest&)>;

class Router {
 public:
  // The `route` label of answers no route gave (404, 405, a malformed target).
  static constexpr std::string_view kUnmatched = "unmatched";

  // Aborts on a malformed pattern: patterns are code, not input.
  void Add(Route route);

  // The paths under `dialect.roots` are refused (and take query parameters) its way; the rest
  // as google.rpc errors. Add before serving.
  void AddDialect(ApiDialect dialect);

  // Finds the route for `request` and calls it, after `check` (when set) let it through; the
  // response's `route` names the route. The route's name is `RoutedRequest::route`.
  HttpResponse Dispatch(const HttpRequest& request, const AccessCheck& check = {}) const;

  // The route `Dispatch` would call for `request`'s method and path; nullptr when none (404,
  // 405, a malformed target).
  const Route* Find(const HttpRequest& request) const;

  // The names of every route added, in order (once each).
  std::vector<std::string> RouteNames() const;

  // Every route added, in order.
  std::vector<const Route*> Routes() const;

 private:
  struct Segment {
    std::string text;  // the literal, or the variable's name
    bool variable = false;
    bool rest = false;  // `{name=**}`: the rest of the path (last segment only)
  };
  struct CompiledRoute {
    Route route;
    std::vector<Segment> segments;
    std::string verb;  // "" or e.g. "cancel"
  };

  // The raw (still encoded) values of `compiled`'s variables, or false when `path` is not its.
  static bool Match(const CompiledRoute& compiled, const std::vector<std::string_view>& path,
                    std::vector<std::string_view>& values);

  // The route for `method` among those matching `path` (with its raw variables), else the
  // methods the path has (none: no route has the path).
  struct Choice {
    const CompiledRoute* chosen = nullptr;
    std::vector<std::string_view> values;
    std::vector<std::string> allowed;
  };
  Choice Choose(std::string_view method, const std::vector<std::string_view>& path) const;

  // The dialect of `target`'s path; nullptr: google.rpc.
  const ApiDialect* DialectOf(std::string_view target) const;
  HttpResponse Refuse(const RouterRefusal& refusal, std::string_view target) const;

  std::vector<CompiledRoute> routes_;
  std::vector<ApiDialect> dialects_;
};

}  // namespace trainyard::server
