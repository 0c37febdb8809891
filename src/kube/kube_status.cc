#include "kube/kube_status.h"

#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace trainyard::kube {
namespace {

using nlohmann::ordered_json;

// "tfjobs.kubeflow.org" or, for the core group, "pods": apimachinery's GroupResource.String().
std::string GroupResource(std::string_view group, std::string_view resource) {
  return group.empty() ? std::string(resource) : fmt::format("{}.{}", resource, group);
}

// Go's %q for the plain strings that reach it here (names, values): quotes and backslashes
// escaped; a control character is shown as \xNN rather than dropped.
std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

KubeError Error(int code, std::string reason, std::string message) {
  return KubeError{.code = code, .reason = std::move(reason), .message = std::move(message)};
}

}  // namespace

KubeError NotFound(std::string_view group, std::string_view resource, std::string_view name) {
  KubeError error = Error(
      404, "NotFound", fmt::format("{} {} not found", GroupResource(group, resource), Quote(name)));
  error.name = name;
  error.group = group;
  error.kind = resource;  // apimachinery puts the resource in details.kind here
  return error;
}

KubeError AlreadyExists(std::string_view group, std::string_view resource, std::string_view name) {
  KubeError error =
      Error(409, "AlreadyExists",
            fmt::format("{} {} already exists", GroupResource(group, resource), Quote(name)));
  error.name = name;
  error.group = group;
  error.kind = resource;
  return error;
}

KubeError Conflict(std::string_view group, std::string_view resource, std::string_view name,
                   std::string_view message) {
  KubeError error = Error(409, "Conflict",
                          fmt::format("Operation cannot be fulfilled on {} {}: {}",
                                      GroupResource(group, resource), Quote(name), message));
  error.name = name;
  error.group = group;
  error.kind = resource;
  return error;
}

std::string CauseText(const StatusCause& cause) {
  return cause.field.empty() ? cause.message : fmt::format("{}: {}", cause.field, cause.message);
}

KubeError Invalid(std::string_view kind, std::string_view group, std::string_view name,
                  std::vector<StatusCause> causes) {
  // apimachinery's NewInvalid: the aggregate of one error is its text, of several a bracketed
  // list; none at all is an empty aggregate.
  std::string aggregate;
  if (causes.size() == 1) {
    aggregate = CauseText(causes.front());
  } else {
    aggregate = "[";
    for (std::size_t i = 0; i < causes.size(); ++i) {
      aggregate += (i == 0 ? "" : ", ") + CauseText(causes[i]);
    }
    aggregate += "]";
  }
  const std::string qualified =
      group.empty() ? std::string(kind) : fmt::format("{}.{}", kind, group);
  KubeError error =
      Error(422, "Invalid", fmt::format("{} {} is invalid: {}", qualified, Quote(name), aggregate));
  error.name = name;
  error.group = group;
  error.kind = kind;
  error.causes = std::move(causes);
  return error;
}

KubeError BadRequest(std::string message) {
  return Error(400, "BadRequest", std::move(message));
}

KubeError MethodNotAllowed(std::string_view method) {
  return Error(
      405, "MethodNotAllowed",
      fmt::format("the server does not allow this method on the requested resource ({})", method));
}

KubeError Forbidden(std::string message) {
  return Error(403, "Forbidden", std::move(message));
}

KubeError Unauthorized() {
  return Error(401, "Unauthorized", "Unauthorized");
}

KubeError ForbiddenVerb(std::string_view user, std::string_view verb, std::string_view group,
                        std::string_view resource, std::string_view name,
                        std::string_view namespace_name) {
  const std::string_view top = resource.substr(0, resource.find('/'));
  std::string subject = group.empty() ? std::string(top) : fmt::format("{}.{}", top, group);
  if (!name.empty()) {
    subject += fmt::format(" \"{}\"", name);
  }
  const std::string scope = namespace_name.empty()
                                ? std::string("at the cluster scope")
                                : fmt::format("in the namespace \"{}\"", namespace_name);
  KubeError error = Error(403, "Forbidden",
                          fmt::format("{} is forbidden: User \"{}\" cannot {} resource \"{}\" in "
                                      "API group \"{}\" {}",
                                      subject, user, verb, resource, group, scope));
  error.name = name;
  error.group = group;
  error.kind = top;
  return error;
}

KubeError NotAcceptable(std::string message) {
  return Error(406, "NotAcceptable", std::move(message));
}

KubeError UnsupportedMediaType(std::string_view content_type) {
  return Error(415, "UnsupportedMediaType",
               fmt::format("the body of the request was in an unknown format - accepted media "
                           "types include: application/json, application/merge-patch+json, "
                           "application/json-patch+json ({} given)",
                           content_type));
}

KubeError InternalError(std::string_view message) {
  KubeError error =
      Error(500, "InternalError", fmt::format("Internal error occurred: {}", message));
  error.causes.push_back(StatusCause{.message = std::string(message)});
  return error;
}

std::string EncodeStatus(const KubeError& error) {
  ordered_json details = ordered_json::object();
  if (!error.name.empty()) {
    details["name"] = error.name;
  }
  if (!error.group.empty()) {
    details["group"] = error.group;
  }
  if (!error.kind.empty()) {
    details["kind"] = error.kind;
  }
  if (!error.causes.empty()) {
    ordered_json causes = ordered_json::array();
    for (const StatusCause& cause : error.causes) {
      ordered_json out = ordered_json::object();
      if (!cause.reason.empty()) {
        out["reason"] = cause.reason;
      }
      out["message"] = cause.message;
      if (!cause.field.empty()) {
        out["field"] = cause.field;
      }
      causes.push_back(std::move(out));
    }
    details["causes"] = std::move(causes);
  }
  ordered_json status = {
      {"kind", "Status"},    {"apiVersion", "v1"},       {"metadata", ordered_json::object()},
      {"status", "Failure"}, {"message", error.message}, {"reason", error.reason}};
  if (!details.empty()) {
    status["details"] = std::move(details);
  }
  status["code"] = error.code;
  return status.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

std::string EncodeSuccessStatus(std::string_view name, std::string_view group,
                                std::string_view kind, std::string_view uid) {
  ordered_json details = {{"name", name}, {"group", group}, {"kind", kind}};
  if (!uid.empty()) {
    details["uid"] = uid;
  }
  const ordered_json status = {{"kind", "Status"},
                               {"apiVersion", "v1"},
                               {"metadata", ordered_json::object()},
                               {"status", "Success"},
                               {"details", std::move(details)}};
  return status.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

StatusCause RequiredCause(std::string field, std::string_view detail) {
  return StatusCause{
      .reason = "FieldValueRequired",
      .message = detail.empty() ? "Required value" : fmt::format("Required value: {}", detail),
      .field = std::move(field)};
}

StatusCause InvalidCause(std::string field, std::string_view value, std::string_view detail) {
  return StatusCause{.reason = "FieldValueInvalid",
                     .message = fmt::format("Invalid value: {}: {}", Quote(value), detail),
                     .field = std::move(field)};
}

StatusCause InvalidNumberCause(std::string field, std::int64_t value, std::string_view detail) {
  return StatusCause{.reason = "FieldValueInvalid",
                     .message = fmt::format("Invalid value: {}: {}", value, detail),
                     .field = std::move(field)};
}

StatusCause NotSupportedCause(std::string field, std::string_view value,
                              const std::vector<std::string_view>& supported) {
  std::string list;
  for (std::size_t i = 0; i < supported.size(); ++i) {
    list += (i == 0 ? "" : ", ") + Quote(supported[i]);
  }
  return StatusCause{
      .reason = "FieldValueNotSupported",
      .message = fmt::format("Unsupported value: {}: supported values: {}", Quote(value), list),
      .field = std::move(field)};
}

StatusCause ForbiddenCause(std::string field, std::string_view detail) {
  return StatusCause{.reason = "FieldValueForbidden",
                     .message = fmt::format("Forbidden: {}", detail),
                     .field = std::move(field)};
}

StatusCause DuplicateCause(std::string field, std::string_view value) {
  return StatusCause{.reason = "FieldValueDuplicate",
                     .message = fmt::format("Duplicate value: {}", Quote(value)),
                     .field = std::move(field)};
}

StatusCause TooLongCause(std::string field, std::size_t max) {
  return StatusCause{.reason = "FieldValueTooLong",
                     .message = fmt::format("Too long: may not be longer than {}", max),
                     .field = std::move(field)};
}

}  // namespace trainyard::kube
