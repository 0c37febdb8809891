// Kubernetes API errors as values: the metav1.Status object every failed request answers with,
// built by the same factories apimachinery uses (k8s.io/apimachinery/pkg/api/errors), so that
// kubectl prints the messages users know ("tfjobs.kubeflow.org \"x\" not found"). Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/check.h"

namespace trainyard::kube {

// One reason a request is invalid (metav1.StatusCause), for 422 Invalid answers.
struct StatusCause {
  // "FieldValueRequired", "FieldValueInvalid", "FieldValueNotSupported", "FieldValueDuplicate",
  // "FieldValueForbidden", "FieldValueTooLong"
  std::string reason;
  std::string message;  // without the field: "Required value", "Invalid value: \"x\": …"
  std::string field;    // "spec.tfReplicaSpecs[Worker].template.spec.containers[0].image"

  friend bool operator==(const StatusCause&, const StatusCause&) = default;
};

struct KubeError {
  int code = 500;  // the HTTP status
  // "NotFound", "AlreadyExists", "Invalid", "BadRequest", "Conflict", "MethodNotAllowed",
  // "NotAcceptable", "UnsupportedMediaType", "Forbidden", "Unauthorized", "InternalError"
  std::string reason;
  std::string message;
  // details; empty ones are left out of the JSON.
  std::string name;
  std::string group;
  std::string kind;
  std::vector<StatusCause> causes;

  friend bool operator==(const KubeError&, const KubeError&) = default;
};

// A `T` or a `KubeError`: what the Kubernetes-facing functions return.
template <typename T>
class [[nodiscard]] KubeResult {
 public:
  KubeResult(T value) : value_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  KubeResult(KubeError error) : value_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(value_); }
  const KubeError& error() const {
    TY_CHECK(!ok()) << "error() of a successful KubeResult";
    return std::get<KubeError>(value_);
  }
  T& value() & { return checked(); }
  const T& value() const& { return checked(); }
  T&& value() && { return std::move(checked()); }
  T& operator*() & { return checked(); }
  const T& operator*() const& { return checked(); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &checked(); }

 private:
  T& checked() {
    TY_CHECK(ok()) << "value() of a failed KubeResult: " << std::get<KubeError>(value_).message;
    return std::get<T>(value_);
  }
  const T& checked() const {
    TY_CHECK(ok()) << "value() of a failed KubeResult: " << std::get<KubeError>(value_).message;
    return std::get<T>(value_);
  }

  std::variant<T, KubeError> value_;
};

// 404: `tfjobs.kubeflow.org "x" not found` (group "" for core resources: `pods "x" not found`).
KubeError NotFound(std::string_view group, std::string_view resource, std::string_view name);
// 409: `tfjobs.kubeflow.org "x" already exists`.
KubeError AlreadyExists(std::string_view group, std::string_view resource, std::string_view name);
// 409: `Operation cannot be fulfilled on tfjobs.kubeflow.org "x": <message>` (a stale
// resourceVersion, for instance).
KubeError Conflict(std::string_view group, std::string_view resource, std::string_view name,
                   std::string_view message);
// 422: `TFJob.kubeflow.org "x" is invalid: <field>: <message>`, several causes in brackets and
// separated by ", " (apimachinery's NewInvalid with ToAggregate).
KubeError Invalid(std::string_view kind, std::string_view group, std::string_view name,
                  std::vector<StatusCause> causes);
KubeError BadRequest(std::string message);            // 400
KubeError MethodNotAllowed(std::string_view method);  // 405, the message kubectl shows
KubeError Forbidden(std::string message);             // 403
KubeError Unauthorized();                             // 401: "Unauthorized"
// 403 as RBAC words it: `tfjobs.kubeflow.org "x" is forbidden: User "u" cannot get resource
// "tfjobs" in API group "kubeflow.org" in the namespace "n"` (no name for a collection; "at the
// cluster scope" without a namespace).
KubeError ForbiddenVerb(std::string_view user, std::string_view verb, std::string_view group,
                        std::string_view resource, std::string_view name,
                        std::string_view namespace_name);
KubeError NotAcceptable(std::string message);                   // 406
KubeError UnsupportedMediaType(std::string_view content_type);  // 415
KubeError InternalError(std::string_view message);  // 500: "Internal error occurred: …"

// A cause in the text form `Invalid` joins: "<field>: <message>" (just the message without one).
std::string CauseText(const StatusCause& cause);

// The error as metav1.Status JSON: {"kind":"Status","apiVersion":"v1","metadata":{},
// "status":"Failure","message":…,"reason":…,"details":{"name","group","kind","causes"},"code":…}.
std::string EncodeStatus(const KubeError& error);

// The Status a DELETE answers with for an object already gone (status "Success"), with
// details {name, group, kind, uid} as the API server writes them.
std::string EncodeSuccessStatus(std::string_view name, std::string_view group,
                                std::string_view kind, std::string_view uid);

// Cause builders in apimachinery's field.Error wording (ErrorBody), e.g. "Required value",
// "Invalid value: \"x\": must be …", "Unsupported value: \"x\": supported values: \"a\"".
StatusCause RequiredCause(std::string field, std::string_view detail = "");
StatusCause InvalidCause(std::string field, std::string_view value, std::string_view detail);
StatusCause InvalidNumberCause(std::string field, std::int64_t value, std::string_view detail);
StatusCause NotSupportedCause(std::string field, std::string_view value,
                              const std::vector<std::string_view>& supported);
StatusCause ForbiddenCause(std::string field, std::string_view detail);
StatusCause DuplicateCause(std::string field, std::string_view value);
StatusCause TooLongCause(std::string field, std::size_t max);

}  // namespace trainyard::kube
