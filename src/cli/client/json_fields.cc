#include "cli/client/json_fields.h"

#include <nlohmann/json.hpp>

namespace trainyard::cli {

std::optional<std::string> StringAt(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) {
    return std::nullopt;
  }
  const auto found = object.find(key);
  if (found == object.end() || !found->is_string()) {
    return std::nullopt;
  }
  return found->get<std::string>();
}

}  // namespace trainyard::cli
