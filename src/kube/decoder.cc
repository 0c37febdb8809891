#include <string>
#include <utility>

#include <fmt/format.h>

#include "base/json_dialects.h"
#include "base/time_format.h"
#include "kube/decode_internal.h"

namespace trainyard::kube::internal {

Location Location::Key(std::string_view key) const {
  return Location{JsonChildPath(path, key),
                  field.empty() ? std::string(key) : fmt::format("{}.{}", field, key)};
}

Location Location::MapKey(std::string_view key) const {
  return Location{fmt::format("{}.{}", path, key), fmt::format("{}[{}]", field, key)};
}

Location Location::Index(std::size_t index) const {
  return Location{JsonIndexPath(path, index), JsonIndexPath(field, index)};
}

Decoder::Decoder(std::string version)
    : version_(std::move(version)), reader_(kKubeJsonDialect, [this](const JsonError& error) {
        if (!error_.has_value()) {
          error_ = BadRequest(fmt::format(
              "TFJob in version \"{}\" cannot be handled as a TFJob: {}", version_, error.message));
        }
      }) {}

void Decoder::OptionalString(const json& value, const Location& at, std::string_view go_struct,
                             std::optional<std::string>& out) {
  std::string text;
  if (reader_.String(value, at.path, text, {.type = "string", .owner = go_struct})) {
    out = std::move(text);
  }
}

void Decoder::Int32(const json& value, const Location& at, std::string_view go_struct,
                    std::optional<std::int32_t>& out) {
  std::int32_t number = 0;
  if (reader_.Int32(value, at.path, number, {.type = "int32", .owner = go_struct})) {
    out = number;
  }
}

void Decoder::Int64(const json& value, const Location& at, std::string_view go_struct,
                    std::optional<std::int64_t>& out) {
  std::int64_t number = 0;
  if (reader_.Int64(value, at.path, number, {.type = "int64", .owner = go_struct})) {
    out = number;
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
      const std::string item_path = at.Key(key).path;
      reader_.Report({.fault = JsonFault::kWrongType,
                      .at = item_path,
                      .parent = at.path,
                      .value = &item,
                      .names = {.type = "resource.Quantity", .owner = go_struct}});
      return;
    }
  }
}

void Decoder::Time(const json& value, const Location& at, std::string_view go_struct,
                   std::optional<WallTime>& out) {
  // Null is `creationTimestamp: null`, as kubectl and old manifests write it.
  std::string text;
  if (!reader_.String(value, at.path, text, {.type = "v1.Time", .owner = go_struct})) {
    return;
  }
  out = ParseTimestamp(text);
  if (!out.has_value()) {
    const std::string why = fmt::format(
        "parsing time {} as \"2006-01-02T15:04:05Z07:00\": cannot parse it as RFC 3339 ({})",
        value.dump(), at.path);
    reader_.Report({.fault = JsonFault::kInvalid, .at = at.path, .parent = at.path, .detail = why});
  }
}

}  // namespace trainyard::kube::internal
