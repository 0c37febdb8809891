// The protobuf bodies kubectl's typed clients send for the authorization reviews of `kubectl auth
// can-i` (Content-Type application/vnd.kubernetes.protobuf): Kubernetes's envelope ("k8s\0", then
// a runtime.Unknown holding the TypeMeta and the object's own message), read into the JSON the
// same review would have been sent as, so one handler reads both. Only what trainyard answers
// from is read: a SelfSubjectAccessReview's spec (resourceAttributes: namespace, verb, group,
// version, resource, subresource, name; nonResourceAttributes: path, verb) and a
// SelfSubjectRulesReview's spec.namespace; the field numbers are authorization/v1's
// generated.proto (docs/reference/kubeflow-tfjob.md §13). Pure.
#pragma once

#include <string>
#include <string_view>

#include "kube/kube_status.h"

namespace trainyard::kube {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";

// `body` as JSON: {"kind", "apiVersion", "spec": {…}}. 400 naming what is wrong when it is not an
// envelope, holds another kind, or a message is cut short.
KubeResult<std::string> ReviewProtoToJson(std::string_view body);

}  // namespace trainyard::kube
