#include "kube/yaml_text.h"

#include <algorithm>
#include <string_view>

namespace trainyard::kube::internal {
namespace {

using nlohmann::ordered_json;

// Words YAML 1.1 (and so kubectl's parser) reads as booleans or null.
constexpr std::string_view kReserved[] = {
    "true", "false", "yes",   "no",  "on", "off", "null", "True", "False", "Yes", "No", "On", "Off",
    "Null", "TRUE",  "FALSE", "YES", "NO", "ON",  "OFF",  "NULL", "y",     "n",   "Y",  "N",  "~"};

// Plain when it starts with a letter or '/', holds only characters that are never syntax, and
// is no reserved word; anything else (numbers included) is written as a JSON string, which is
// valid YAML.
bool IsPlain(std::string_view text) {
  if (text.empty() || std::ranges::find(kReserved, text) != std::end(kReserved)) {
    return false;
  }
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!letter(text.front()) && text.front() != '/') {
    return false;
  }
  return std::ranges::all_of(text, [&](char c) {
    return letter(c) || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '/';
  });
}

std::string Scalar(const ordered_json& value) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    return IsPlain(text) ? text
                         : value.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  }
  return value.dump();  // numbers, booleans, null
}

bool IsCollection(const ordered_json& value) {
  return (value.is_object() || value.is_array()) && !value.empty();
}

void Emit(const ordered_json& value, int indent, std::string& out);

// `value` after "key:" or "- ": inline when a scalar or an empty collection, else on the
// following lines.
void EmitAfter(const ordered_json& value, int indent, std::string& out) {
  if (!IsCollection(value)) {
    out += ' ';
    out += value.is_object() ? "{}" : value.is_array() ? "[]" : Scalar(value);
    out += '\n';
    return;
  }
  out += '\n';
  Emit(value, indent, out);
}

void Emit(const ordered_json& value, int indent, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      out += pad + Scalar(ordered_json(key)) + ':';
      EmitAfter(item, indent + 2, out);
    }
  } else if (value.is_array()) {
    for (const ordered_json& item : value) {
      if (item.is_object() && !item.empty()) {
        // "- " then the map's first key on the same line, the rest aligned under it.
        std::string nested;
        Emit(item, indent + 2, nested);
        out += pad + "- " + nested.substr(static_cast<std::size_t>(indent) + 2);
      } else {
        out += pad + '-';
        EmitAfter(item, indent + 2, out);
      }
    }
  }
}

}  // namespace

std::string ToYaml(const ordered_json& value) {
  std::string out;
  Emit(value, 0, out);
  return out;
}

}  // namespace trainyard::kube::internal
