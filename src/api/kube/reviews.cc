#include "api/kube/reviews.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/kube/api.h"
#include "api/kube/internal.h"
#include "kube/review_proto.h"

namespace trainyard::server {
namespace {

using nlohmann::json;

// Whether `row` lets `caller` through in `namespace_name`, as Authorize decides a request.
bool RowAllows(const RouteAccess& row, const std::optional<access::Principal>& caller,
               std::string_view namespace_name) {
  if (!caller.has_value() || row.from == ProjectFrom::kAnyCaller) {
    return true;
  }
  return row.from == ProjectFrom::kNamespace &&
         access::Allows(*caller, row.permission, namespace_name);
}

constexpr std::array<std::string_view, 7> kOpenPaths = {
    "/api", "/api/*", "/apis", "/apis/*", "/version", "/openapi", "/openapi/*"};

}  // namespace

std::vector<const RouteAccess*> KubeAccessRows(std::span<const RouteAccess> table,
                                               std::string_view verb, std::string_view group,
                                               std::string_view resource) {
  const std::string_view routed_verb = verb == "watch" ? "list" : verb;
  std::vector<const RouteAccess*> rows;
  for (const RouteAccess& row : table) {
    if (!row.kube.verb.empty() && row.kube.verb == routed_verb && row.kube.group == group &&
        row.kube.resource == resource) {
      rows.push_back(&row);
    }
  }
  return rows;
}

KubeAccessAnswer DecideKubeAccess(std::span<const RouteAccess> table,
                                  const std::optional<access::Principal>& caller,
                                  const KubeAccessQuestion& question) {
  const std::vector<const RouteAccess*> rows =
      KubeAccessRows(table, question.verb, question.group, question.resource);
  const std::string what = question.verb + " " + question.resource +
                           (question.group.empty() ? "" : "." + question.group);
  if (rows.empty()) {
    return {.allowed = false, .reason = "trainyard serves no route to " + what};
  }
  for (const RouteAccess* row : rows) {
    if (!RowAllows(*row, caller, question.namespace_name)) {
      return {.allowed = false,
              .reason = std::string(row->permission) + " is not among the caller's grants in " +
                        (question.namespace_name.empty() ? std::string("every project")
                                                         : "project " + question.namespace_name)};
    }
  }
  if (!caller.has_value()) {
    return {.allowed = true, .reason = "the server checks no tokens"};
  }
  const RouteAccess& row = *rows.front();
  return {.allowed = true,
          .reason = row.from == ProjectFrom::kAnyCaller
                        ? std::string("any caller with a valid token may")
                        : "the caller holds " + std::string(row.permission)};
}

std::span<const std::string_view> KubeOpenPaths() {
  return kOpenPaths;
}

bool KubeOpenPathAllows(std::string_view verb, std::string_view path) {
  if (verb != "get") {
    return false;
  }
  return std::ranges::any_of(kOpenPaths, [&](std::string_view pattern) {
    if (pattern.ends_with("/*")) {
      const std::string_view prefix = pattern.substr(0, pattern.size() - 1);
      return path.starts_with(prefix) && path.size() > prefix.size();
    }
    return path == pattern;
  });
}

std::vector<KubeRule> KubeRulesIn(std::span<const RouteAccess> table,
                                  const std::optional<access::Principal>& caller,
                                  std::string_view namespace_name) {
  std::vector<KubeRule> rules;
  for (const RouteAccess& row : table) {
    if (row.kube.verb.empty()) {
      continue;
    }
    // A verb several routes serve is allowed only when each of their rows allows it.
    const std::vector<const RouteAccess*> rows =
        KubeAccessRows(table, row.kube.verb, row.kube.group, row.kube.resource);
    if (!std::ranges::all_of(rows, [&](const RouteAccess* each) {
          return RowAllows(*each, caller, namespace_name);
        })) {
      continue;
    }
    auto rule = std::ranges::find_if(rules, [&](const KubeRule& r) {
      return r.group == row.kube.group && r.resource == row.kube.resource;
    });
    if (rule == rules.end()) {
      rules.push_back(KubeRule{.group = std::string(row.kube.group),
                               .resource = std::string(row.kube.resource)});
      rule = rules.end() - 1;
    }
    for (const std::string_view verb :
         {std::string_view(row.kube.verb),
          row.kube.verb == "list" ? std::string_view("watch") : std::string_view()}) {
      if (!verb.empty() && std::ranges::find(rule->verbs, verb) == rule->verbs.end()) {
        rule->verbs.emplace_back(verb);
      }
    }
  }
  return rules;
}

namespace kube_internal {
namespace {

constexpr std::string_view kAuthorizationVersion = "authorization.k8s.io/v1";

std::optional<access::Principal> CallerOf(const Context& context, const Request& request) {
  return context.options.caller ? context.options.caller(request.http) : std::nullopt;
}

// The review `kind` as sent (JSON, or protobuf as kubectl's typed client sends it), or the 400
// naming what is wrong with it.
std::variant<json, HttpResponse> ReadReview(const Request& request, std::string_view kind) {
  std::string body = request.http.body;
  if (request.http.content_type.starts_with(kube::kProtobufContentType)) {
    kube::KubeResult<std::string> read = kube::ReviewProtoToJson(body);
    if (!read.ok()) {
      return Error(read.error());
    }
    body = std::move(*read);
  }
  json review = json::parse(body, nullptr, false);
  if (!review.is_object()) {
    return Error(kube::BadRequest("the body is not a JSON " + std::string(kind) + " object"));
  }
  if (review.value("kind", std::string(kind)) != kind ||
      review.value("apiVersion", std::string(kAuthorizationVersion)) != kAuthorizationVersion) {
    return Error(kube::BadRequest("the object is not an " + std::string(kAuthorizationVersion) +
                                  " " + std::string(kind)));
  }
  if (!review.contains("spec") || !review["spec"].is_object()) {
    return Error(
        kube::Invalid(kind, "authorization.k8s.io", "", {kube::RequiredCause("spec", "")}));
  }
  return review;
}

std::string Text(const json& object, std::string_view key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

HttpResponse Answer(json review, std::string_view kind, json status) {
  review["kind"] = kind;
  review["apiVersion"] = kAuthorizationVersion;
  review["metadata"] = {{"creationTimestamp", nullptr}};
  review["status"] = std::move(status);
  return Json(review.dump(), 201);
}

}  // namespace

HttpResponse CreateAccessReview(const Context& context, const Request& request) {
  constexpr std::string_view kKind = "SelfSubjectAccessReview";
  std::variant<json, HttpResponse> read = ReadReview(request, kKind);
  if (auto* refused = std::get_if<HttpResponse>(&read)) {
    return std::move(*refused);
  }
  json review = std::get<json>(std::move(read));
  const json& spec = review["spec"];
  const bool on_resource =
      spec.contains("resourceAttributes") && spec["resourceAttributes"].is_object();
  const bool on_path =
      spec.contains("nonResourceAttributes") && spec["nonResourceAttributes"].is_object();
  if (on_resource == on_path) {
    return Error(kube::Invalid(
        kKind, "authorization.k8s.io", "",
        {kube::InvalidCause("spec.resourceAttributes", on_resource ? "{...}" : "null",
                            "exactly one of nonResourceAttributes or resourceAttributes must be "
                            "specified")}));
  }
  KubeAccessAnswer answer;
  if (on_path) {
    const json& path = spec["nonResourceAttributes"];
    const bool allowed = KubeOpenPathAllows(Text(path, "verb"), Text(path, "path"));
    answer = {.allowed = allowed,
              .reason = allowed ? "any caller with a valid token may read discovery"
                                : "trainyard serves no such path to anyone"};
  } else {
    const json& attributes = spec["resourceAttributes"];
    KubeAccessQuestion question{.verb = Text(attributes, "verb"),
                                .group = Text(attributes, "group"),
                                .resource = Text(attributes, "resource"),
                                .namespace_name = Text(attributes, "namespace")};
    if (const std::string subresource = Text(attributes, "subresource"); !subresource.empty()) {
      question.resource += "/" + subresource;
    }
    if (question.verb.empty()) {
      return Error(kube::Invalid(kKind, "authorization.k8s.io", "",
                                 {kube::RequiredCause("spec.resourceAttributes.verb", "")}));
    }
    answer = DecideKubeAccess(KubeRouteAccess(), CallerOf(context, request), question);
  }
  json status = {{"allowed", answer.allowed}, {"reason", answer.reason}};
  return Answer(std::move(review), kKind, std::move(status));
}

HttpResponse CreateRulesReview(const Context& context, const Request& request) {
  constexpr std::string_view kKind = "SelfSubjectRulesReview";
  std::variant<json, HttpResponse> read = ReadReview(request, kKind);
  if (auto* refused = std::get_if<HttpResponse>(&read)) {
    return std::move(*refused);
  }
  json review = std::get<json>(std::move(read));
  const std::string namespace_name = Text(review["spec"], "namespace");
  json resource_rules = json::array();
  for (const KubeRule& rule :
       KubeRulesIn(KubeRouteAccess(), CallerOf(context, request), namespace_name)) {
    resource_rules.push_back({{"verbs", rule.verbs},
                              {"apiGroups", json::array({rule.group})},
                              {"resources", json::array({rule.resource})}});
  }
  json open_paths = json::array();
  for (const std::string_view path : KubeOpenPaths()) {
    open_paths.push_back(path);
  }
  json status = {{"resourceRules", std::move(resource_rules)},
                 {"nonResourceRules", json::array({{{"verbs", json::array({"get"})},
                                                    {"nonResourceURLs", std::move(open_paths)}}})},
                 {"incomplete", false}};
  return Answer(std::move(review), kKind, std::move(status));
}

}  // namespace kube_internal
}  // namespace trainyard::server
