#include "kube/review_proto.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainyard::kube {
namespace {

using nlohmann::json;

constexpr std::string_view kMagic{"k8s\0", 4};

// One field of a message: its number, and its bytes when length-delimited.
struct Field {
  std::uint32_t number = 0;
  std::string_view bytes;
};

// The length-delimited fields of `message` (varint and fixed ones skipped); nullopt when it is
// cut short or malformed.
std::optional<std::vector<Field>> Fields(std::string_view message) {
  std::vector<Field> fields;
  std::size_t at = 0;
  const auto varint = [&]() -> std::optional<std::uint64_t> {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at >= message.size()) {
        return std::nullopt;
      }
      const auto byte = static_cast<unsigned char>(message[at++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        return value;
      }
    }
    return std::nullopt;
  };
  while (at < message.size()) {
    const std::optional<std::uint64_t> key = varint();
    if (!key) {
      return std::nullopt;
    }
    const auto number = static_cast<std::uint32_t>(*key >> 3);
    switch (*key & 7) {
      case 0:
        if (!varint()) {
          return std::nullopt;
        }
        break;
      case 1:
        at += 8;
        break;
      case 5:
        at += 4;
        break;
      case 2: {
        const std::optional<std::uint64_t> length = varint();
        if (!length || *length > message.size() - at) {
          return std::nullopt;
        }
        fields.push_back({number, message.substr(at, *length)});
        at += *length;
        break;
      }
      default:
        return std::nullopt;
    }
    if (at > message.size()) {
      return std::nullopt;
    }
  }
  return fields;
}

// The last length-delimited field `number` of `fields` ("" when absent), and whether it was there.
std::pair<std::string_view, bool> Get(const std::vector<Field>& fields, std::uint32_t number) {
  std::pair<std::string_view, bool> found{"", false};
  for (const Field& field : fields) {
    if (field.number == number) {
      found = {field.bytes, true};
    }
  }
  return found;
}

// The string fields `names` (field i + 1 is names[i]) of `message` as a JSON object.
std::optional<json> Strings(std::string_view message, const std::vector<std::string_view>& names) {
  const std::optional<std::vector<Field>> fields = Fields(message);
  if (!fields) {
    return std::nullopt;
  }
  json object = json::object();
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto [value, present] = Get(*fields, static_cast<std::uint32_t>(i + 1));
    if (present) {
      object[std::string(names[i])] = std::string(value);
    }
  }
  return object;
}

KubeError Malformed(std::string_view what) {
  return BadRequest("the protobuf body is not a readable " + std::string(what));
}

}  // namespace

KubeResult<std::string> ReviewProtoToJson(std::string_view body) {
  if (!body.starts_with(kMagic)) {
    return BadRequest("the protobuf body does not start with Kubernetes's envelope (\"k8s\\0\")");
  }
  const std::optional<std::vector<Field>> envelope = Fields(body.substr(kMagic.size()));
  if (!envelope) {
    return Malformed("runtime.Unknown envelope");
  }
  const std::optional<json> type = Strings(Get(*envelope, 1).first, {"apiVersion", "kind"});
  if (!type) {
    return Malformed("TypeMeta");
  }
  const std::string kind = type->value("kind", "");
  const std::optional<std::vector<Field>> object = Fields(Get(*envelope, 2).first);
  if (!object) {
    return Malformed(kind);
  }
  const std::optional<std::vector<Field>> spec_fields = Fields(Get(*object, 2).first);
  if (!spec_fields) {
    return Malformed(kind + " spec");
  }
  json spec = json::object();
  if (kind == "SelfSubjectAccessReview") {
    if (const auto [bytes, present] = Get(*spec_fields, 1); present) {
      std::optional<json> attributes = Strings(
          bytes, {"namespace", "verb", "group", "version", "resource", "subresource", "name"});
      if (!attributes) {
        return Malformed("spec.resourceAttributes");
      }
      spec["resourceAttributes"] = std::move(*attributes);
    }
    if (const auto [bytes, present] = Get(*spec_fields, 2); present) {
      std::optional<json> attributes = Strings(bytes, {"path", "verb"});
      if (!attributes) {
        return Malformed("spec.nonResourceAttributes");
      }
      spec["nonResourceAttributes"] = std::move(*attributes);
    }
  } else if (kind == "SelfSubjectRulesReview") {
    if (const auto [bytes, present] = Get(*spec_fields, 1); present) {
      spec["namespace"] = std::string(bytes);
    }
  } else {
    return BadRequest(
        "trainyard reads protobuf only for SelfSubjectAccessReview and "
        "SelfSubjectRulesReview, not \"" +
        kind + "\"; send JSON");
  }
  return json{{"kind", kind}, {"apiVersion", type->value("apiVersion", "")}, {"spec", spec}}.dump();
}

}  // namespace trainyard::kube
