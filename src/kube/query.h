// Query parameters as the Kubernetes API server reads them. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/kube_status.h"

namespace trainyard::kube {

// A boolean query parameter (`watch`, `follow`, `timestamps`, …), as apimachinery's
// Convert_Slice_string_To_bool reads it (pkg/runtime/conversion.go): absent, "0" or "false" in
// any case is false; any other value, "" included, is true. So the Python client's `watch=True`
// is a watch, and no value is refused.
bool QueryBool(std::optional<std::string_view> value);

// What `fieldValidation` (Kubernetes 1.27+; absent: Warn) makes of the fields the decoder did not
// know (`unknown`, as DecodedTFJob lists them): Strict refuses them (400, "strict decoding error:
// unknown field \"a\", unknown field \"b\""), Warn answers a warning per field (`unknown field
// "a"`: the API sends each as a Warning header), Ignore drops them. Any other directive is a 400,
// whether fields are unknown or not. The warnings, in `unknown`'s order.
KubeResult<std::vector<std::string>> UnknownFieldWarnings(std::optional<std::string_view> directive,
                                                          const std::vector<std::string>& unknown);

}  // namespace trainyard::kube
