#include "cli/commands/vertex_config.h"

#include <charconv>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "base/check.h"
#include "base/embedded.h"
#include "model/yaml_bool.h"

namespace trainyard::cli::vertex_data {
base::EmbeddedFiles Embedded();
}  // namespace trainyard::cli::vertex_data

namespace trainyard::cli {
namespace {

using nlohmann::json;

// Aliases let a small YAML text name the same list many times over; stop after this many values.
constexpr int kMaxValues = 100'000;

const json& Schema() {
  static const json schema = json::parse(vertex_data::Embedded().Get("vertex_fields.json"));
  return schema;
}

// The fields of the message `name` (field name -> type), or null when the schema has no such
// message.
const json* MessageFields(std::string_view name) {
  const json& messages = Schema().at("messages");
  const auto found = messages.find(std::string(name));
  return found == messages.end() ? nullptr : &*found;
}

std::optional<std::int64_t> ParseInteger(std::string_view text) {
  if (text.starts_with('+')) {
    text.remove_prefix(1);
  }
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<double> ParseDouble(std::string_view text) {
  if (text.starts_with('+')) {
    text.remove_prefix(1);
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

class Converter {
 public:
  // `node` as YAML's core schema types it: what gcloud forwards for a field it does not know.
  json Natural(const YAML::Node& node) {
    if (!Count()) {
      return nullptr;
    }
    if (node.IsMap()) {
      json object = json::object();
      for (const auto& entry : node) {
        object[entry.first.Scalar()] = Natural(entry.second);
      }
      return object;
    }
    if (node.IsSequence()) {
      json array = json::array();
      for (const auto& item : node) {
        array.push_back(Natural(item));
      }
      return array;
    }
    if (!node.IsScalar() ||
        (node.Tag() == "?" && (node.Scalar() == "~" || node.Scalar() == "null"))) {
      return nullptr;
    }
    const std::string& text = node.Scalar();
    if (node.Tag() == "!") {  // quoted: always a string
      return text;
    }
    if (const auto value = model::ParseYamlBool(text)) {
      return *value;
    }
    if (const auto value = ParseInteger(text)) {
      return *value;
    }
    if (const auto value = ParseDouble(text)) {
      return *value;
    }
    return text;
  }

  // `node` as a value of `type`: a scalar type, "map", "any", or a message name; "[]" for a list.
  json Typed(const YAML::Node& node, std::string_view type) {
    if (type.ends_with("[]")) {
      const std::string_view item = type.substr(0, type.size() - 2);
      json array = json::array();
      if (node.IsSequence()) {
        for (const auto& element : node) {
          array.push_back(Typed(element, item));
        }
      } else if (node.IsMap()) {  // apitools takes one message for a list of one
        array.push_back(Typed(node, item));
      } else {
        return Natural(node);
      }
      return array;
    }
    if (!node.IsScalar()) {
      if (const json* fields = MessageFields(type); node.IsMap() && fields != nullptr) {
        return Message(node, *fields);
      }
      if (node.IsMap() && type == "map") {
        json object = json::object();
        for (const auto& entry : node) {
          object[entry.first.Scalar()] =
              entry.second.IsScalar() ? json(entry.second.Scalar()) : Natural(entry.second);
        }
        return object;
      }
      return Natural(node);
    }
    const std::string& text = node.Scalar();
    if (type == "string") {
      return text;
    }
    if (type == "int64") {
      const auto value = ParseInteger(text);
      return value ? json(std::to_string(*value)) : Natural(node);
    }
    if (type == "int32") {
      const auto value = ParseInteger(text);
      return value ? json(*value) : Natural(node);
    }
    if (type == "double") {
      const auto value = ParseDouble(text);
      return value ? json(*value) : Natural(node);
    }
    if (type == "bool") {
      const auto value = model::ParseYamlBool(text);
      return value ? json(*value) : Natural(node);
    }
    return Natural(node);
  }

  json Message(const YAML::Node& node, const json& fields) {
    if (!Count()) {
      return nullptr;
    }
    json object = json::object();
    for (const auto& entry : node) {
      const std::string& name = entry.first.Scalar();
      if (entry.second.IsNull()) {
        continue;  // apitools leaves a field set to null unset
      }
      const auto field = fields.find(name);
      object[name] = field == fields.end() ? Natural(entry.second)
                                           : Typed(entry.second, field->get<std::string>());
    }
    return object;
  }

  bool exhausted() const { return remaining_ < 0; }

 private:
  bool Count() { return --remaining_ >= 0; }

  int remaining_ = kMaxValues;
};

}  // namespace

Result<json> ParseVertexConfig(std::string_view text, std::string_view message,
                               std::string_view source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const std::exception& e) {
    return Status::InvalidArgument(
        fmt::format("Failed to parse YAML from [{}]: {}", source, e.what()));
  }
  if (!root.IsDefined() || root.IsNull()) {
    return json::object();
  }
  if (!root.IsMap()) {
    return Status::InvalidArgument(
        fmt::format("Cannot parse YAML: [{}] must hold a {} mapping", source, message));
  }
  const json* fields = MessageFields(message);
  TY_CHECK(fields != nullptr) << "no message " << message << " in vertex_fields.json";
  Converter converter;
  json out;
  try {
    out = converter.Message(root, *fields);
  } catch (const std::exception& e) {  // a key that is not a scalar
    return Status::InvalidArgument(fmt::format("Cannot parse YAML: [{}]: {}", source, e.what()));
  }
  if (converter.exhausted()) {
    return Status::InvalidArgument(
        fmt::format("Cannot parse YAML: [{}] holds more than {} values", source, kMaxValues));
  }
  return out;
}

const std::vector<std::string>& VertexAcceleratorTypes() {
  static const std::vector<std::string> types =
      Schema().at("acceleratorTypes").get<std::vector<std::string>>();
  return types;
}

}  // namespace trainyard::cli
