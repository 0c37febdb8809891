// Internal to kube/: JSON as block-style YAML, keys in the JSON's order, strings quoted whenever
// YAML would read them as something else, so `kubectl apply -f` reads back exactly the JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace trainyard::kube::internal {

std::string ToYaml(const nlohmann::ordered_json& value);

}  // namespace trainyard::kube::internal
