#include "model/yaml_mapping.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace trainyard::model {

std::map<std::string, YAML::Node> YamlMappingEntries(
    const YAML::Node& map, const std::string& path,
    const std::set<std::string_view, std::less<>>& known, std::string_view known_list,
    std::vector<FieldViolation>& out) {
  std::map<std::string, YAML::Node> entries;
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) {
      out.push_back({path, "has a key that is not a string"});
      continue;
    }
    const std::string& key = entry.first.Scalar();
    const std::string field = path.empty() ? key : fmt::format("{}.{}", path, key);
    if (!known.contains(key)) {
      out.push_back({field, fmt::format("is not a known key; known keys: {}", known_list)});
    } else if (!entries.emplace(key, entry.second).second) {
      out.push_back({field, "is repeated"});
    }
  }
  return entries;
}

}  // namespace trainyard::model
