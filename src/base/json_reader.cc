#include "base/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "base/utf8.h"

namespace trainyard {
namespace {

using nlohmann::json;

// Why `value` is not an `Int` (std::nullopt when it is one, stored in `out`). Lenient: proto3
// JSON, which accepts integral floats and decimal strings too.
template <typename Int>
std::optional<JsonFault> ReadInteger(const json& value, bool lenient, Int& out) {
  constexpr Int kMin = std::numeric_limits<Int>::min();
  constexpr Int kMax = std::numeric_limits<Int>::max();
  if (value.is_number_unsigned()) {
    const auto number = value.get<std::uint64_t>();
    if (number > static_cast<std::uint64_t>(kMax)) {
      return JsonFault::kOutOfRange;
    }
    out = static_cast<Int>(number);
    return std::nullopt;
  }
  if (value.is_number_integer()) {
    const auto number = value.get<std::int64_t>();
    if (number < kMin || number > kMax) {
      return JsonFault::kOutOfRange;
    }
    out = static_cast<Int>(number);
    return std::nullopt;
  }
  if (!lenient) {
    return JsonFault::kWrongType;
  }
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (!std::isfinite(number) || std::trunc(number) != number) {
      return JsonFault::kNotIntegral;
    }
    // -kMin is a power of two, exact as a double; every integral double below it converts safely.
    if (number < static_cast<double>(kMin) || number >= -static_cast<double>(kMin)) {
      return JsonFault::kOutOfRange;
    }
    out = static_cast<Int>(number);
    return std::nullopt;
  }
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    const char* end = text.data() + text.size();
    Int number{};
    const auto [ptr, ec] = std::from_chars(text.data(), end, number);
    if (ptr != end || ec == std::errc::invalid_argument) {
      return JsonFault::kNotDecimal;
    }
    if (ec == std::errc::result_out_of_range) {
      return JsonFault::kOutOfRange;
    }
    out = number;
    return std::nullopt;
  }
  return JsonFault::kWrongType;
}

}  // namespace

std::string QuoteForMessage(std::string_view text) {
  constexpr std::size_t kMaxShown = 100;
  const bool cut = text.size() > kMaxShown;
  const json shown(std::string(text.substr(0, kMaxShown)));
  std::string quoted = shown.dump(-1, ' ', false, json::error_handler_t::replace);
  if (cut) {
    quoted.insert(quoted.size() - 1, "...");
  }
  return quoted;
}

std::string JsonChildPath(std::string_view parent, std::string_view name) {
  std::string out(parent);
  if (!out.empty()) {
    out += '.';
  }
  out += name;
  return out;
}

std::string JsonIndexPath(std::string_view parent, std::size_t index) {
  return std::string(parent) + '[' + std::to_string(index) + ']';
}

JsonReader::JsonReader(const JsonDialect& dialect, Sink sink, std::string_view root_name)
    : dialect_(dialect),
      sink_(std::move(sink)),
      root_name_(root_name.empty() ? dialect.root_name : root_name) {}

void JsonReader::Report(JsonProblem problem) {
  const std::string at(problem.at.empty() ? root_name_ : problem.at);
  const std::string parent(problem.parent.empty() ? root_name_ : problem.parent);
  problem.at = at;
  problem.parent = parent;
  JsonError error;
  switch (problem.fault) {
    case JsonFault::kUnknownMember:
      error = {parent, dialect_.unknown_member(problem), at};
      break;
    case JsonFault::kUnsupported:
      error = {at, dialect_.unsupported(problem), at};
      break;
    default:
      error = {at, dialect_.value_error(problem), at};
      break;
  }
  sink_(std::move(error));
}

void JsonReader::Refuse(JsonFault fault, JsonExpected expected, std::string_view path,
                        const json& value, const JsonNames& names, std::string_view member) {
  const std::string at = member.empty() ? std::string(path) : JsonChildPath(path, member);
  Report({.fault = fault,
          .expected = expected,
          .at = at,
          .parent = path,
          .member = member,
          .value = &value,
          .names = names});
}

void JsonReader::Unknown(std::string_view parent, std::string_view name,
                         std::span<const std::string> known) {
  unknown_.push_back(JsonChildPath(parent, name));
  if (dialect_.unknown_member != nullptr) {
    Report({.fault = JsonFault::kUnknownMember,
            .at = unknown_.back(),
            .parent = parent,
            .member = name,
            .known = known});
  }
}

void JsonReader::Unsupported(std::string_view parent, std::string_view name, std::string_view why) {
  const std::string at = JsonChildPath(parent, name);
  Report({.fault = JsonFault::kUnsupported,
          .at = at,
          .parent = parent,
          .member = name,
          .detail = why});
}

bool JsonReader::OfType(bool is, JsonExpected expected, const json& value, std::string_view path,
                        const JsonNames& names) {
  if (!is && !Absent(value)) {
    Refuse(JsonFault::kWrongType, expected, path, value, names);
  }
  return is;
}

bool JsonReader::String(const json& value, std::string_view path, std::string& out,
                        const JsonNames& names) {
  if (!OfType(value.is_string(), JsonExpected::kString, value, path, names)) {
    return false;
  }
  if (!IsValidUtf8(value.get_ref<const std::string&>())) {
    Refuse(JsonFault::kNotUtf8, JsonExpected::kString, path, value, names);
    return false;
  }
  out = value.get<std::string>();
  return true;
}

template <typename Int>
bool JsonReader::Integer(const json& value, std::string_view path, JsonExpected expected, Int& out,
                         const JsonNames& names) {
  if (Absent(value)) {
    return false;
  }
  if (const auto fault = ReadInteger(value, dialect_.lenient_integers, out)) {
    Refuse(*fault, expected, path, value, names);
    return false;
  }
  return true;
}

bool JsonReader::Int32(const json& value, std::string_view path, std::int32_t& out,
                       const JsonNames& names) {
  return Integer(value, path, JsonExpected::kInt32, out, names);
}

bool JsonReader::Int64(const json& value, std::string_view path, std::int64_t& out,
                       const JsonNames& names) {
  return Integer(value, path, JsonExpected::kInt64, out, names);
}

bool JsonReader::Bool(const json& value, std::string_view path, bool& out, const JsonNames& names) {
  if (!OfType(value.is_boolean(), JsonExpected::kBool, value, path, names)) {
    return false;
  }
  out = value.get<bool>();
  return true;
}

bool JsonReader::Number(const json& value, std::string_view path, double& out,
                        const JsonNames& names) {
  if (!OfType(value.is_number(), JsonExpected::kNumber, value, path, names)) {
    return false;
  }
  if (!std::isfinite(value.get<double>())) {
    Refuse(JsonFault::kNotFinite, JsonExpected::kNumber, path, value, names);
    return false;
  }
  out = value.get<double>();
  return true;
}

bool JsonReader::Object(const json& value, std::string_view path, const JsonNames& names) {
  return OfType(value.is_object(), JsonExpected::kObject, value, path, names);
}

bool JsonReader::Array(const json& value, std::string_view path, const JsonNames& names) {
  return OfType(value.is_array(), JsonExpected::kArray, value, path, names);
}

bool JsonReader::StringList(const json& value, std::string_view path, std::vector<std::string>& out,
                            const JsonNames& names) {
  if (!OfType(value.is_array(), JsonExpected::kStringList, value, path, names)) {
    return false;
  }
  std::vector<std::string> items;
  items.reserve(value.size());
  for (const json& item : value) {
    if (!item.is_string() || !IsValidUtf8(item.get_ref<const std::string&>())) {
      Refuse(item.is_null() ? JsonFault::kNullItem : JsonFault::kBadItem, JsonExpected::kStringList,
             path, item, names);
      return false;
    }
    items.push_back(item.get<std::string>());
  }
  out = std::move(items);
  return true;
}

bool JsonReader::StringMap(const json& value, std::string_view path,
                           std::map<std::string, std::string>& out, const JsonNames& names) {
  if (!OfType(value.is_object(), JsonExpected::kStringMap, value, path, names)) {
    return false;
  }
  bool ok = true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const json& item = *it;
    if (!IsValidUtf8(it.key())) {
      const json key(it.key());
      Refuse(JsonFault::kBadKey, JsonExpected::kStringMap, path, key, names);
    } else if (item.is_null()) {
      Refuse(JsonFault::kNullItem, JsonExpected::kString, path, item, names, it.key());
    } else if (!item.is_string()) {
      Refuse(JsonFault::kBadItem, JsonExpected::kString, path, item, names, it.key());
    } else if (!IsValidUtf8(item.get_ref<const std::string&>())) {
      Refuse(JsonFault::kNotUtf8, JsonExpected::kString, path, item, names, it.key());
    } else {
      out[it.key()] = item.get<std::string>();
      continue;
    }
    ok = false;
  }
  return ok;
}

JsonObject::JsonObject(JsonReader& reader, const json& value, std::string path,
                       const JsonNames& names)
    : reader_(reader), object_(value.is_object() ? &value : nullptr), path_(std::move(path)) {
  if (object_ == nullptr) {
    JsonProblem problem{.fault = JsonFault::kWrongType,
                        .expected = JsonExpected::kObject,
                        .at = path_,
                        .parent = path_,
                        .value = &value,
                        .names = names};
    reader_.Report(problem);
  }
}

const json* JsonObject::Take(std::string_view name, bool required) {
  taken_.emplace_back(name);
  if (object_ == nullptr) {
    return nullptr;
  }
  const auto it = object_->find(name);
  if (it == object_->end()) {
    if (required) {
      const std::string at = ChildPath(name);
      reader_.Report({.fault = JsonFault::kMissing, .at = at, .parent = path_, .member = name});
    }
    return nullptr;
  }
  if (it->is_null() && reader_.dialect().null_is_absent) {
    return nullptr;
  }
  return &*it;
}

std::string JsonObject::String(std::string_view name, const JsonNames& names) {
  std::string out;
  if (const json* value = Take(name)) {
    reader_.String(*value, ChildPath(name), out, names);
  }
  return out;
}

std::int32_t JsonObject::Int32(std::string_view name, const JsonNames& names) {
  std::int32_t out = 0;
  if (const json* value = Take(name)) {
    reader_.Int32(*value, ChildPath(name), out, names);
  }
  return out;
}

std::int64_t JsonObject::Int64(std::string_view name, const JsonNames& names) {
  std::int64_t out = 0;
  if (const json* value = Take(name)) {
    reader_.Int64(*value, ChildPath(name), out, names);
  }
  return out;
}

bool JsonObject::Bool(std::string_view name, const JsonNames& names) {
  bool out = false;
  if (const json* value = Take(name)) {
    reader_.Bool(*value, ChildPath(name), out, names);
  }
  return out;
}

double JsonObject::Number(std::string_view name, const JsonNames& names) {
  double out = 0;
  if (const json* value = Take(name)) {
    reader_.Number(*value, ChildPath(name), out, names);
  }
  return out;
}

std::vector<std::string> JsonObject::StringList(std::string_view name, const JsonNames& names) {
  std::vector<std::string> out;
  if (const json* value = Take(name)) {
    reader_.StringList(*value, ChildPath(name), out, names);
  }
  return out;
}

std::map<std::string, std::string> JsonObject::StringMap(std::string_view name,
                                                         const JsonNames& names) {
  std::map<std::string, std::string> out;
  if (const json* value = Take(name)) {
    reader_.StringMap(*value, ChildPath(name), out, names);
  }
  return out;
}

const json* JsonObject::Object(std::string_view name, const JsonNames& names) {
  const json* value = Take(name);
  if (value != nullptr && !reader_.Object(*value, ChildPath(name), names)) {
    return nullptr;
  }
  return value;
}

const json* JsonObject::Array(std::string_view name, const JsonNames& names) {
  const json* value = Take(name);
  if (value != nullptr && !reader_.Array(*value, ChildPath(name), names)) {
    return nullptr;
  }
  return value;
}

void JsonObject::Unsupported(std::string_view name, std::string_view why) {
  if (Take(name) != nullptr) {
    reader_.Unsupported(path_, name, why);
  }
}

void JsonObject::Finish() {
  if (object_ == nullptr) {
    return;
  }
  for (auto it = object_->begin(); it != object_->end(); ++it) {
    if (std::ranges::find(taken_, it.key()) == taken_.end()) {
      reader_.Unknown(path_, it.key(), taken_);
    }
  }
}

}  // namespace trainyard
