#include "server/router.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "base/check.h"
#include "server/rpc_error.h"
#include "server/uri.h"

namespace trainyard::server {
namespace {

// System parameters every Google API accepts; they never change what a method does here.
constexpr std::array<std::string_view, 11> kStandardQueryParams = {
    "alt",      "prettyPrint", "fields",     "$.xgafv",        "key", "quotaUser", "access_token",
    "callback", "oauth_token", "uploadType", "upload_protocol"};

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> segments;
  path.remove_prefix(1);  // the leading "/"
  while (true) {
    const std::size_t slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) {
      return segments;
    }
    path.remove_prefix(slash + 1);
  }
}

HttpResponse Unmatched(HttpResponse response) {
  response.route = std::string(Router::kUnmatched);
  return response;
}

}  // namespace

const std::string& RoutedRequest::Param(std::string_view name) const {
  const std::string* value = FindParam(name);
  TY_CHECK(value != nullptr) << "route has no variable " << name;
  static const std::string kNone;
  return value != nullptr ? *value : kNone;
}

const std::string* RoutedRequest::FindParam(std::string_view name) const {
  for (const auto& [key, value] : params) {
    if (key == name) {
      return &value;
    }
  }
  return nullptr;
}

const std::string* RoutedRequest::Query(std::string_view name) const {
  const std::string* found = nullptr;
  for (const auto& [key, value] : query) {
    if (key == name) {
      found = &value;
    }
  }
  return found;
}

void Router::Add(Route route) {
  TY_CHECK(!route.pattern.empty() && route.pattern.front() == '/') << route.pattern;
  CompiledRoute compiled;
  std::vector<std::string_view> parts = SplitPath(route.pattern);
  std::string_view& last = parts.back();
  if (const std::size_t colon = last.rfind(':'); colon != std::string_view::npos) {
    compiled.verb = std::string(last.substr(colon + 1));
    last = last.substr(0, colon);
    TY_CHECK(!compiled.verb.empty()) << route.pattern;
  }
  for (std::string_view part : parts) {
    TY_CHECK(!part.empty() && part.find(':') == std::string_view::npos) << route.pattern;
    TY_CHECK(compiled.segments.empty() || !compiled.segments.back().rest)
        << route.pattern << ": {name=**} must be last";
    if (part.front() == '{') {
      TY_CHECK(part.size() > 2 && part.back() == '}') << route.pattern;
      std::string_view name = part.substr(1, part.size() - 2);
      const bool rest = name.ends_with("=**");
      if (rest) {
        name.remove_suffix(3);
        TY_CHECK(compiled.verb.empty()) << route.pattern << ": {name=**} takes no verb";
      }
      compiled.segments.push_back({std::string(name), true, rest});
    } else {
      compiled.segments.push_back({std::string(part), false});
    }
  }
  compiled.route = std::move(route);
  routes_.push_back(std::move(compiled));
}

bool Router::Match(const CompiledRoute& compiled, const std::vector<std::string_view>& path,
                   std::vector<std::string_view>& values) {
  const bool rest = !compiled.segments.empty() && compiled.segments.back().rest;
  if (rest ? path.size() < compiled.segments.size() : path.size() != compiled.segments.size()) {
    return false;
  }
  values.clear();
  for (std::size_t i = 0; i < compiled.segments.size(); ++i) {
    if (compiled.segments[i].rest) {
      // The segments are views of one path: the rest runs from this one to the end.
      const std::string_view first = path[i];
      const std::string_view last = path.back();
      const std::string_view all(
          first.data(), static_cast<std::size_t>(last.data() + last.size() - first.data()));
      if (all.empty()) {
        return false;
      }
      values.push_back(all);
      return true;
    }
    std::string_view raw = path[i];
    if (i + 1 == path.size() && !compiled.verb.empty()) {
      const std::string suffix = ":" + compiled.verb;
      if (!raw.ends_with(suffix)) {
        return false;
      }
      raw.remove_suffix(suffix.size());
    }
    const Segment& segment = compiled.segments[i];
    if (segment.variable ? raw.empty() : raw != segment.text) {
      return false;
    }
    if (segment.variable) {
      values.push_back(raw);
    }
  }
  return true;
}

void Router::AddDialect(ApiDialect dialect) {
  TY_CHECK(dialect.refuse != nullptr) << "a dialect without its refusals";
  for (const std::string& root : dialect.roots) {
    TY_CHECK(!root.empty() && root.front() == '/' && root.back() != '/') << root;
  }
  dialects_.push_back(std::move(dialect));
}

bool UnderRoot(std::string_view target, std::string_view root) {
  const std::string_view path = target.substr(0, target.find('?'));
  return path.starts_with(root) && (path.size() == root.size() || path[root.size()] == '/');
}

const ApiDialect* Router::DialectOf(std::string_view target) const {
  for (const ApiDialect& dialect : dialects_) {
    if (std::ranges::any_of(dialect.roots,
                            [&](const std::string& root) { return UnderRoot(target, root); })) {
      return &dialect;
    }
  }
  return nullptr;
}

HttpResponse Router::Refuse(const RouterRefusal& refusal, std::string_view target) const {
  if (const ApiDialect* dialect = DialectOf(target)) {
    return dialect->refuse(refusal);
  }
  HttpResponse response = ErrorResponse(refusal.http_status, refusal.status);
  if (refusal.http_status == 405) {
    response.headers.emplace_back("Allow", fmt::format("{}", fmt::join(refusal.allowed, ", ")));
  }
  return response;
}

Router::Choice Router::Choose(std::string_view method,
                              const std::vector<std::string_view>& path) const {
  // Routes whose pattern matches; a route with a verb beats one without ("x:cancel").
  std::vector<std::pair<const CompiledRoute*, std::vector<std::string_view>>> matches;
  bool verb_matched = false;
  std::vector<std::string_view> values;
  for (const CompiledRoute& compiled : routes_) {
    if (Match(compiled, path, values)) {
      matches.emplace_back(&compiled, values);
      verb_matched = verb_matched || !compiled.verb.empty();
    }
  }
  if (verb_matched) {
    std::erase_if(matches, [](const auto& m) { return m.first->verb.empty(); });
  }
  Choice choice;
  for (auto& [compiled, raw] : matches) {
    if (compiled->route.method == method) {
      choice.chosen = compiled;
      choice.values = std::move(raw);
      return choice;
    }
    choice.allowed.push_back(compiled->route.method);
  }
  return choice;
}

const Route* Router::Find(const HttpRequest& request) const {
  auto target = ParseTarget(request.target);
  if (!target.ok()) {
    return nullptr;
  }
  const Choice choice = Choose(request.method, SplitPath(target->path));
  return choice.chosen != nullptr ? &choice.chosen->route : nullptr;
}

HttpResponse Router::Dispatch(const HttpRequest& request, const AccessCheck& check) const {
  auto target = ParseTarget(request.target);
  if (!target.ok()) {
    return Unmatched(Refuse({.http_status = HttpStatusFor(target.status().code()),
                             .status = target.status(),
                             .method = request.method},
                            request.target));
  }
  Choice choice = Choose(request.method, SplitPath(target->path));
  if (choice.chosen == nullptr && choice.allowed.empty()) {
    return Unmatched(
        Refuse({.http_status = 404,
                .status = Status::NotFound(fmt::format(
                    "The requested URL {} was not found on this server.", target->path)),
                .method = request.method,
                .path = target->path},
               request.target));
  }
  if (choice.chosen == nullptr) {
    Status why = Status::Unimplemented(fmt::format("Method {} is not allowed on {}; allowed: {}.",
                                                   request.method, target->path,
                                                   fmt::join(choice.allowed, ", ")));
    return Unmatched(Refuse({.http_status = 405,
                             .status = std::move(why),
                             .method = request.method,
                             .path = target->path,
                             .allowed = std::move(choice.allowed)},
                            request.target));
  }

  const CompiledRoute& compiled = *choice.chosen;
  const ApiDialect* dialect = DialectOf(request.target);
  RoutedRequest routed{.http = request, .route = compiled.route.name, .matched = &compiled.route};
  std::size_t next_value = 0;
  for (const Segment& segment : compiled.segments) {
    if (!segment.variable) {
      continue;
    }
    const std::string_view raw = choice.values[next_value++];
    auto decoded = segment.rest || compiled.route.slashes_in_variables
                       ? DecodePathRest(raw, segment.text)
                       : DecodePathSegment(raw, segment.text);
    if (!decoded.ok()) {
      HttpResponse response = Refuse({.http_status = HttpStatusFor(decoded.status().code()),
                                      .status = decoded.status(),
                                      .method = request.method,
                                      .path = target->path},
                                     request.target);
      response.route = compiled.route.name;
      return response;
    }
    routed.params.emplace_back(segment.text, *std::move(decoded));
  }
  std::vector<FieldViolation> unknown;
  for (auto& [name, value] : target->query) {
    const bool declared =
        (dialect != nullptr && dialect->any_query) ||
        std::ranges::find(compiled.route.query_params, name) != compiled.route.query_params.end();
    if (!declared && std::ranges::find(kStandardQueryParams, name) != kStandardQueryParams.end()) {
      continue;
    }
    if (!declared) {
      unknown.push_back(
          {name,
           fmt::format("Unknown query parameter; {} {} accepts: {}.", compiled.route.method,
                       compiled.route.pattern,
                       compiled.route.query_params.empty()
                           ? std::string("none")
                           : fmt::format("{}", fmt::join(compiled.route.query_params, ", ")))});
      continue;
    }
    routed.query.emplace_back(std::move(name), std::move(value));
  }
  if (check && unknown.empty()) {  // the route's own parameters may name the resource
    if (std::optional<HttpResponse> refused = check(routed)) {
      refused->route = compiled.route.name;
      return *std::move(refused);
    }
  }
  HttpResponse response = unknown.empty()
                              ? compiled.route.handler(routed)
                              : Refuse({.http_status = 400,
                                        .status = Status::InvalidArgument(std::move(unknown)),
                                        .method = request.method,
                                        .path = target->path},
                                       request.target);
  response.route = compiled.route.name;
  return response;
}

std::vector<const Route*> Router::Routes() const {
  std::vector<const Route*> routes;
  routes.reserve(routes_.size());
  for (const CompiledRoute& compiled : routes_) {
    routes.push_back(&compiled.route);
  }
  return routes;
}

std::vector<std::string> Router::RouteNames() const {
  std::vector<std::string> names;
  for (const CompiledRoute& compiled : routes_) {
    if (std::ranges::find(names, compiled.route.name) == names.end()) {
      names.push_back(compiled.route.name);
    }
  }
  return names;
}

}  // namespace trainyard::server
