#include <limits>
#include <string>

#include <fmt/format.h>

#include "base/time_format.h"
#include "kube/decode_internal.h"

namespace trainyard::kube::internal {
namespace {

// Go's name for what the JSON held, as encoding/json's UnmarshalTypeError says it.
std::string JsonKind(const json& value) {
  switch (value.type()) {
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "number " + value.dump();
    default:
      return "null";
  }
}

}  // namespace

Location Location::Key(std::string_view key) const {
  return Location{path.empty() ? std::string(key) : fmt::format("{}.{}", path, key),
                  field.empty() ? std::string(key) : fmt::format("{}.{}", field, key)};
}

Location Location::MapKey(std::string_view key) const {
  return Location{fmt::format("{}.{}", path, key), fmt::format("{}[{}]", field, key)};
}

Location Location::Index(std::size_t index) const {
  return Location{fmt::format("{}[{}]", path, index), fmt::format("{}[{}]", field, index)};
}

void Decoder::TypeError(const json& value, const Location& at, std::string_view go_struct,
                        std::string_view go_type) {
  if (error_.has_value()) {
    return;
  }
  error_ = BadRequest(
      fmt::format("TFJob in version \"{}\" cannot be handled as a TFJob: json: cannot unmarshal "
                  "{} into Go struct field {}.{} of type {}",
                  version_, JsonKind(value), go_struct, at.path, go_type));
}

void Decoder::String(const json& value, const Location& at, std::string_view go_struct,
                     std::string& out) {
  if (value.is_string()) {
    out = value.get<std::string>();
  } else if (!value.is_null()) {
    TypeError(value, at, go_struct, "string");
  }
}

void Decoder::OptionalString(const json& value, const Location& at, std::string_view go_struct,
                             std::optional<std::string>& out) {
  if (value.is_string()) {
    out = value.get<std::string>();
  } else if (!value.is_null()) {
    TypeError(value, at, go_struct, "string");
  }
}

std::optional<std::int64_t> Decoder::Integer(const json& value, const Location& at,
                                             std::string_view go_struct, std::string_view go_type,
                                             std::int64_t min, std::int64_t max) {
  if (value.is_null()) {
    return std::nullopt;
  }
  // Go refuses a fraction and anything out of the type's range, "1.0" included.
  std::optional<std::int64_t> number;
  if (value.is_number_unsigned()) {
    if (value.get<std::uint64_t>() <= static_cast<std::uint64_t>(max)) {
      number = static_cast<std::int64_t>(value.get<std::uint64_t>());
    }
  } else if (value.is_number_integer()) {
    const std::int64_t n = value.get<std::int64_t>();
    if (n >= min && n <= max) {
      number = n;
    }
  }
  if (!number.has_value()) {
    TypeError(value, at, go_struct, go_type);
  }
  return number;
}

void Decoder::Int32(const json& value, const Location& at, std::string_view go_struct,
                    std::optional<std::int32_t>& out) {
  if (const auto number =
          Integer(value, at, go_struct, "int32", std::numeric_limits<std::int32_t>::min(),
                  std::numeric_limits<std::int32_t>::max())) {
    out = static_cast<std::int32_t>(*number);
  }
}

void Decoder::Int64(const json& value, const Location& at, std::string_view go_struct,
                    std::optional<std::int64_t>& out) {
  if (const auto number =
          Integer(value, at, go_struct, "int64", std::numeric_limits<std::int64_t>::min(),
                  std::numeric_limits<std::int64_t>::max())) {
    out = number;
  }
}

void Decoder::Bool(const json& value, const Location& at, std::string_view go_struct, bool& out) {
  if (value.is_boolean()) {
    out = value.get<bool>();
  } else if (!value.is_null()) {
    TypeError(value, at, go_struct, "bool");
  }
}

void Decoder::Strings(const json& value, const Location& at, std::string_view go_struct,
                      std::vector<std::string>& out) {
  if (!Array(value, at, go_struct, "[]string")) {
    return;
  }
  out.clear();
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) {
      TypeError(value[i], at, go_struct, "string");
      return;
    }
    out.push_back(value[i].get<std::string>());
  }
}

void Decoder::Map(const json& value, const Location& at, std::string_view go_struct,
                  StringMap& out) {
  if (!Object(value, at, go_struct, "map[string]string")) {
    return;
  }
  for (const auto& [key, item] : value.items()) {
    if (!item.is_string()) {
      TypeError(item, at, go_struct, "string");
      return;
    }
    out[key] = item.get<std::string>();
  }
}

void Decoder::Quantities(const json& value, const Location& at, std::string_view go_struct,
                         StringMap& out) {
  if (!Object(value, at, go_struct, "v1.ResourceList")) {
    return;
  }
  for (const auto& [key, item] : value.items()) {
    if (item.is_string()) {
      out[key] = item.get<std::string>();
    } else if (item.is_number()) {
      out[key] = item.dump();  // `nvidia.com/gpu: 1` in YAML arrives as the number 1
    } else {
      TypeError(item, at.Key(key), go_struct, "resource.Quantity");
      return;
    }
  }
}

void Decoder::Time(const json& value, const Location& at, std::string_view go_struct,
                   std::optional<WallTime>& out) {
  if (value.is_null()) {
    return;  // `creationTimestamp: null`, as kubectl and old manifests write it
  }
  if (!value.is_string()) {
    TypeError(value, at, go_struct, "v1.Time");
    return;
  }
  out = ParseTimestamp(value.get<std::string>());
  if (!out.has_value() && !error_.has_value()) {
    error_ = BadRequest(
        fmt::format("TFJob in version \"{}\" cannot be handled as a TFJob: parsing time {} as "
                    "\"2006-01-02T15:04:05Z07:00\": cannot parse it as RFC 3339 ({})",
                    version_, value.dump(), at.path));
  }
}

bool Decoder::Object(const json& value, const Location& at, std::string_view go_struct,
                     std::string_view go_type) {
  if (value.is_object()) {
    return true;
  }
  if (!value.is_null()) {
    TypeError(value, at, go_struct, go_type);
  }
  return false;
}

bool Decoder::Array(const json& value, const Location& at, std::string_view go_struct,
                    std::string_view go_type) {
  if (value.is_array()) {
    return true;
  }
  if (!value.is_null()) {
    TypeError(value, at, go_struct, go_type);
  }
  return false;
}

}  // namespace trainyard::kube::internal
