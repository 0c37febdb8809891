#include "model/yaml_to_json.h"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "base/json_reader.h"
#include "model/fields.h"
#include "model/wire_text.h"
#include "model/yaml_bool.h"

namespace trainyard::model::internal {
namespace {

using nlohmann::json;

template <typename T>
struct Type {};

// Aliases let a small YAML text name the same list many times over; stop after this many values
// (a real config file has a few dozen).
constexpr std::size_t kMaxValues = 100'000;
constexpr std::string_view kRoot = "job";

// A value of a type the schema did not expect: kept as its kind, not its content.
std::string Where(const std::string& path) {
  return path.empty() ? std::string(kRoot) : path;
}

json Shallow(const YAML::Node& node) {
  if (node.IsScalar()) {
    return node.Scalar();
  }
  if (node.IsMap()) {
    return json::object();
  }
  if (node.IsSequence()) {
    return json::array();
  }
  return nullptr;
}

std::optional<double> ParseFloat(std::string_view text) {
  if (text.starts_with('+')) {
    text.remove_prefix(1);
  }
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() ||
      !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

class Converter;

// Visits a message's fields for `VisitFields`, converting the value of the one named `name`.
class FieldConverter {
 public:
  FieldConverter(Converter& converter, std::string_view name, const YAML::Node& node,
                 const std::string& path)
      : converter_(converter), name_(name), node_(node), path_(path) {}

  template <typename T>
  void Field(std::string_view name, const T& /*unused*/);
  void Bytes(std::string_view name, const std::string& value) { Field(name, value); }
  void Unsupported(std::string_view /*name*/, std::string_view /*why*/) {}

  std::optional<json>& result() { return result_; }

 private:
  Converter& converter_;
  std::string_view name_;
  const YAML::Node& node_;
  const std::string& path_;
  std::optional<json> result_;
};

class Converter {
 public:
  Converter(Violations& out, SourcePositions& positions) : out_(out), positions_(positions) {}

  bool exhausted() const { return exhausted_; }

  // `node` as the JSON form of a `T` at `path`.
  template <typename T>
  json Value(const YAML::Node& node, const std::string& path) {
    if (remaining_ == 0) {
      if (!exhausted_) {
        out_.Add(Where(path), fmt::format("the document holds more than {} values", kMaxValues));
        exhausted_ = true;
      }
      return nullptr;
    }
    --remaining_;
    if (!node.IsDefined() || node.IsNull()) {
      return nullptr;
    }
    return Convert(node, path, Type<T>{});
  }

 private:
  template <fields::Message M>
  json Convert(const YAML::Node& node, const std::string& path, Type<M> /*unused*/) {
    if (!node.IsMap()) {
      return Shallow(node);
    }
    json object = json::object();
    for (const auto& entry : node) {
      if (!IsNewKey(entry.first, object, path)) {
        continue;
      }
      const std::string& name = entry.first.Scalar();
      const std::string child = JsonChildPath(path, name);
      Remember(child, entry.first.Mark());
      FieldConverter field(*this, name, entry.second, child);
      const M schema{};
      fields::VisitFields(field, schema);
      object[name] = field.result() ? std::move(*field.result()) : Shallow(entry.second);
    }
    return object;
  }

  template <typename T>
  json Convert(const YAML::Node& node, const std::string& path, Type<std::optional<T>> /*unused*/) {
    return Convert(node, path, Type<T>{});
  }

  template <typename T>
  json Convert(const YAML::Node& node, const std::string& path, Type<std::vector<T>> /*unused*/) {
    if (!node.IsSequence()) {
      return Shallow(node);
    }
    json array = json::array();
    std::size_t index = 0;
    for (const auto& item : node) {
      const std::string item_path = JsonIndexPath(path, index++);
      Remember(item_path, item.Mark());
      array.push_back(Value<T>(item, item_path));
    }
    return array;
  }

  json Convert(const YAML::Node& node, const std::string& path,
               Type<std::map<std::string, std::string>> /*unused*/) {
    if (!node.IsMap()) {
      return Shallow(node);
    }
    json object = json::object();
    for (const auto& entry : node) {
      if (!IsNewKey(entry.first, object, path)) {
        continue;
      }
      const std::string child = JsonChildPath(path, entry.first.Scalar());
      Remember(child, entry.first.Mark());
      object[entry.first.Scalar()] = Value<std::string>(entry.second, child);
    }
    return object;
  }

  json Convert(const YAML::Node& node, const std::string& /*path*/, Type<double> /*unused*/) {
    if (node.IsScalar()) {
      if (const auto value = ParseFloat(node.Scalar())) {
        return *value;
      }
    }
    return Shallow(node);
  }

  json Convert(const YAML::Node& node, const std::string& /*path*/, Type<bool> /*unused*/) {
    if (node.IsScalar()) {
      if (const auto value = ParseYamlBool(node.Scalar())) {
        return *value;
      }
    }
    return Shallow(node);
  }

  // Strings, enums, integers (proto3 JSON reads decimal strings for every integer type),
  // timestamps and durations: the scalar's own text, whatever YAML would have typed it as.
  template <typename T>
  json Convert(const YAML::Node& node, const std::string& /*path*/, Type<T> /*unused*/) {
    return Shallow(node);
  }

  // Whether `key` can name a member of `object`: a string not seen before (YAML forbids
  // duplicate keys; gcloud's loader rejects them).
  bool IsNewKey(const YAML::Node& key, const json& object, const std::string& path) {
    std::string problem;
    if (!key.IsScalar()) {
      problem = "a mapping key is not a string";
    } else if (object.contains(key.Scalar())) {
      problem = fmt::format("duplicate key {}", QuoteForMessage(key.Scalar()));
    } else {
      return true;
    }
    if (key.Mark().is_null()) {
      out_.Add(Where(path), problem);
    } else {
      out_.Add(Where(path), fmt::format("{} (line {}, column {})", problem, key.Mark().line + 1,
                                        key.Mark().column + 1));
    }
    return false;
  }

  void Remember(const std::string& path, const YAML::Mark& mark) {
    if (!mark.is_null()) {
      positions_.try_emplace(path, SourcePosition{mark.line + 1, mark.column + 1});
    }
  }

  Violations& out_;
  SourcePositions& positions_;
  std::size_t remaining_ = kMaxValues;
  bool exhausted_ = false;
};

template <typename T>
void FieldConverter::Field(std::string_view name, const T& /*unused*/) {
  if (name == name_) {
    result_ = converter_.Value<T>(node_, path_);
  }
}

}  // namespace

std::optional<json> JobYamlToJson(const YAML::Node& root, Violations& out,
                                  SourcePositions& positions) {
  Converter converter(out, positions);
  json document = converter.Value<Job>(root, "");
  if (converter.exhausted()) {
    return std::nullopt;
  }
  return document;
}

}  // namespace trainyard::model::internal

namespace trainyard::model {

std::optional<bool> ParseYamlBool(std::string_view text) {
  if (text == "true" || text == "True" || text == "TRUE") {
    return true;
  }
  if (text == "false" || text == "False" || text == "FALSE") {
    return false;
  }
  return std::nullopt;
}

}  // namespace trainyard::model
