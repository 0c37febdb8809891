// YAML 1.2 core-schema booleans, for every reader of YAML in trainyard (config files, cluster
// files): "true"/"True"/"TRUE" and "false"/"False"/"FALSE"; nothing else (no yes/no/on/off).
#pragma once

#include <optional>
#include <string_view>

namespace trainyard::model {

std::optional<bool> ParseYamlBool(std::string_view text);

}  // namespace trainyard::model
