// Query parameters as the Kubernetes API server reads them. Pure.
#pragma once

#include <optional>
#include <string_view>

namespace trainyard::kube {

// A boolean query parameter (`watch`, `follow`, `timestamps`, …), as apimachinery's
// Convert_Slice_string_To_bool reads it (pkg/runtime/conversion.go): absent, "0" or "false" in
// any case is false; any other value, "" included, is true. So the Python client's `watch=True`
// is a watch, and no value is refused.
bool QueryBool(std::optional<std::string_view> value);

}  // namespace trainyard::kube
