// Reading optional fields out of JSON answers, for the decoders of the CLI's clients.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace trainyard::cli {

// The string `object[key]`, or nullopt when `object` is no object or has no such string.
std::optional<std::string> StringAt(const nlohmann::json& object, std::string_view key);

}  // namespace trainyard::cli
