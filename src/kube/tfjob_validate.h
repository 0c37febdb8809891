// The rules a TFJob must meet, as the causes of a 422 Invalid answer: the operator's validating
// webhook and CRD schema (docs/reference/kubeflow-tfjob.md §7), the Kubernetes API server's own
// checks of the object (names, labels, quantities), the enum values the operator leaves unchecked,
// and what trainyard cannot run (§8 GPU rules, one container per replica, refused fields). Pure.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "kube/kube_status.h"
#include "kube/tfjob.h"

namespace trainyard::kube {

// Every cause, in field order; empty means valid. `old` is the stored object on an update (for
// the immutable fields), nullptr on a create.
std::vector<StatusCause> ValidateTFJob(const TFJob& job, const TFJob* old);

// Where a request puts the object, as the API server checks it: in the URL's namespace (filled
// in when the object names none) and, on a request to one object (`url_name` not empty), under
// the URL's name. 400 in the API server's words when the object says otherwise.
std::optional<KubeError> PlaceObject(ObjectMeta& metadata, std::string_view url_namespace,
                                     std::string_view url_name);

// Kubernetes name and label syntax, also used by the mapping.
bool IsDns1035Label(std::string_view name);  // [a-z]([-a-z0-9]*[a-z0-9])?, at most 63
bool IsDns1123Label(std::string_view name);  // [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63
bool IsQualifiedName(std::string_view key);  // a label key: [prefix/]name
bool IsLabelValue(std::string_view value);   // "" or a name part of at most 63
bool IsQuantity(std::string_view quantity);  // "1", "500m", "4Gi", "1e3"

}  // namespace trainyard::kube
