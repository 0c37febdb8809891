#include "base/json_dialects.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace trainyard {
namespace {

using nlohmann::json;

// What a dialect says a value should have been, by JsonExpected: string, int32, int64, bool,
// number, object, array, list of strings, map of strings.
using ExpectedWords = std::array<std::string_view, 9>;
static_assert(static_cast<std::size_t>(JsonExpected::kStringMap) + 1 == ExpectedWords{}.size());

constexpr ExpectedWords kMlV1Expected = {"expected a string",
                                         "expected an integer, as a number or a decimal string",
                                         "expected an integer, as a number or a decimal string",
                                         "expected true or false",
                                         "expected a number",
                                         "expected a JSON object",
                                         "expected a JSON array",
                                         "expected a JSON array",
                                         "expected a JSON object of strings"};
constexpr ExpectedWords kVertexExpected = {
    "a string",  "an integer", "an integer",        "true or false",       "a number",
    "an object", "a list",     "a list of strings", "an object of strings"};
constexpr ExpectedWords kTrainyardExpected = {
    "a string",  "a whole number", "a whole number",    "true or false",       "a number",
    "an object", "a list",         "a list of strings", "an object of strings"};
constexpr ExpectedWords kStorageExpected = {
    "a string",  "a whole number", "a whole number",      "true or false",       "a number",
    "an object", "an array",       "an array of strings", "an object of strings"};
constexpr ExpectedWords kCatalogExpected = {
    "expected a non-empty string", "expected an integer",          "expected an integer",
    "expected true or false",      "expected a number >= 0",       "expected an object",
    "expected an array",           "expected an array of strings", "expected an object"};

std::string_view Phrase(const ExpectedWords& words, JsonExpected expected) {
  return words.at(static_cast<std::size_t>(expected));
}

bool IsItemFault(JsonFault fault) {
  return fault == JsonFault::kBadItem || fault == JsonFault::kNullItem;
}

// --- google.rpc (ml v1 and Vertex) ---

// Google names the object that lacks the member, except the request itself (a root with no name).
std::string GoogleUnknownMember(const JsonProblem& p) {
  if (p.parent.empty()) {
    return fmt::format("Invalid JSON payload received. Unknown name {}: Cannot find field.",
                       QuoteForMessage(p.member));
  }
  return fmt::format("Invalid JSON payload received. Unknown name {} at '{}': Cannot find field.",
                     QuoteForMessage(p.member), p.parent);
}

// A JSON value as an ml v1 message shows it: scalars as written, containers by kind (never dumped
// whole: they may be huge or deeply nested).
std::string Show(const json& value) {
  if (value.is_string()) {
    return QuoteForMessage(value.get_ref<const std::string&>());
  }
  if (value.is_object()) {
    return "{...}";
  }
  if (value.is_array()) {
    return "[...]";
  }
  return value.dump();  // number, boolean or null
}

template <typename Int>
std::string OutOfRange() {
  return fmt::format("out of range [{}, {}]", std::numeric_limits<Int>::min(),
                     std::numeric_limits<Int>::max());
}

std::string MlV1Why(const JsonProblem& p) {
  switch (p.fault) {
    case JsonFault::kNotIntegral:
      return "not an integer";
    case JsonFault::kNotDecimal:
      return "not a base-10 integer";
    case JsonFault::kOutOfRange:
      return p.expected == JsonExpected::kInt32 ? OutOfRange<std::int32_t>()
                                                : OutOfRange<std::int64_t>();
    case JsonFault::kNotFinite:
      return "expected a finite number";
    case JsonFault::kNotUtf8:
      return "not valid UTF-8";
    case JsonFault::kNullItem:
      return p.expected == JsonExpected::kString ? "null is not allowed as a map value"
                                                 : "null is not allowed in a list";
    case JsonFault::kBadKey:
      return "a key is not valid UTF-8";
    case JsonFault::kMissing:
      return "a value is required";
    case JsonFault::kInvalid:
      return std::string(p.detail);
    default:
      break;
  }
  return std::string(Phrase(kMlV1Expected, p.expected));
}

// "Invalid value at 'path' (TYPE), value: why", Google's words plus what is accepted.
std::string MlV1ValueError(const JsonProblem& p) {
  const std::string_view type = p.fault == JsonFault::kNullItem ? std::string_view()
                                : p.member.empty()              ? p.names.type
                                                                : p.names.item;
  const std::string type_part = type.empty() ? "" : fmt::format(" ({})", type);
  const std::string shown = p.value == nullptr ? "null" : Show(*p.value);
  return fmt::format("Invalid value at '{}'{}, {}: {}", p.at, type_part, shown, MlV1Why(p));
}

std::string MlV1Unsupported(const JsonProblem& p) {
  return fmt::format("Invalid JSON payload received. '{}' is not supported: {}.", p.at, p.detail);
}

std::string VertexExpected(const JsonProblem& p) {
  if (p.fault == JsonFault::kInvalid) {
    return std::string(p.detail);
  }
  if (p.expected == JsonExpected::kInt32 && p.fault == JsonFault::kOutOfRange) {
    return "a 32-bit integer";
  }
  return std::string(Phrase(kVertexExpected, p.expected));
}

std::string VertexValueError(const JsonProblem& p) {
  return fmt::format("Invalid value at '{}': expected {}", p.at, VertexExpected(p));
}

std::string VertexUnsupported(const JsonProblem& p) {
  return fmt::format("{} is not supported by trainyard: {}", p.at, p.detail);
}

// --- Kubernetes ---

// Go's name for what the JSON held, as encoding/json's UnmarshalTypeError says it.
std::string GoKind(const json* value) {
  if (value == nullptr) {
    return "null";
  }
  switch (value->type()) {
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
      return "number " + value->dump();
    default:
      return "null";
  }
}

// Go names the field that holds a list or map, not the item, and the item's type.
std::string KubeValueError(const JsonProblem& p) {
  if (p.fault == JsonFault::kInvalid) {
    return std::string(p.detail);
  }
  const bool item = IsItemFault(p.fault);
  return fmt::format("json: cannot unmarshal {} into Go struct field {}.{} of type {}",
                     GoKind(p.value), p.names.owner, item ? p.parent : p.at,
                     item ? p.names.item : p.names.type);
}

// A member the API knows and trainyard refuses; the TFJob decoder lists these itself, as
// Forbidden causes for validation (kube/tfjob_validate.h), so this is for other readers.
std::string KubeUnsupported(const JsonProblem& p) {
  return fmt::format("{}: not supported by trainyard: {}", p.at, p.detail);
}

// --- trainyard v1's own API ---

// A value as trainyard's messages show it: its JSON, cut to about 100 bytes (on a character).
std::string Dumped(const json* value) {
  constexpr std::size_t kMaxShown = 100;
  if (value == nullptr) {
    return "null";
  }
  if (value->is_string()) {
    return QuoteForMessage(value->get_ref<const std::string&>());
  }
  std::string text = value->dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > kMaxShown) {
    std::size_t cut = kMaxShown;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) {
      --cut;  // not inside a UTF-8 sequence
    }
    text.resize(cut);
    text += "...";
  }
  return text;
}

// "expected a whole number, got "64"": what was expected (the caller's words in `names.type`,
// when given) and what came; a missing member came as null.
std::string TrainyardValueError(const JsonProblem& p) {
  if (p.fault == JsonFault::kInvalid) {
    return std::string(p.detail);
  }
  const std::string_view what =
      p.names.type.empty() ? Phrase(kTrainyardExpected, p.expected) : p.names.type;
  return fmt::format("expected {}, got {}", what, Dumped(p.value));
}

// "unknown field: expected project, accelerators, cpus, memory, jobs or weight".
std::string TrainyardUnknownMember(const JsonProblem& p) {
  std::string message = "unknown field";
  for (std::size_t i = 0; i < p.known.size(); ++i) {
    message += i == 0 ? ": expected " : i + 1 == p.known.size() ? " or " : ", ";
    message += p.known[i];
  }
  return message;
}

std::string TrainyardUnsupported(const JsonProblem& p) {
  return fmt::format("{} is not supported: {}", p.at, p.detail);
}

// --- Cloud Storage's JSON API ---

// "Invalid value for labels.k: a string or null.": the caller's words for what goes there (the
// item's for a map's or list's item) when it gives them, else the type's.
std::string StorageValueError(const JsonProblem& p) {
  switch (p.fault) {
    case JsonFault::kInvalid:
      return std::string(p.detail);
    case JsonFault::kMissing:
      return fmt::format("Required: {}.", p.at);
    case JsonFault::kNotUtf8:
      return fmt::format("Invalid value for {}: not valid UTF-8.", p.at);
    default:
      break;
  }
  const std::string_view named = p.member.empty() ? p.names.type : p.names.item;
  return fmt::format("Invalid value for {}: {}.", p.at,
                     named.empty() ? Phrase(kStorageExpected, p.expected) : named);
}

// The resource is the member's parent: the root's name ("bucket", "object") for its own members.
std::string StorageUnknownMember(const JsonProblem& p) {
  return fmt::format("The {} field {} is not known to this server.", p.parent, p.member);
}

std::string StorageUnsupported(const JsonProblem& p) {
  return fmt::format("The {} field {} cannot be set on this server: {}.", p.parent, p.member,
                     p.detail);
}

// --- the catalog ---

std::string CatalogProblem(const JsonProblem& p) {
  switch (p.fault) {
    case JsonFault::kMissing:
      return "missing";
    case JsonFault::kInvalid:
      return std::string(p.detail);
    default:
      break;
  }
  if (p.expected == JsonExpected::kStringList && IsItemFault(p.fault)) {
    return "expected an array of non-empty strings";
  }
  return std::string(Phrase(kCatalogExpected, p.expected));
}

std::string CatalogValueError(const JsonProblem& p) {
  if (p.at.empty()) {  // the entry itself
    return fmt::format("expected a JSON object, got {}",
                       p.value == nullptr ? "null" : p.value->type_name());
  }
  return fmt::format("field \"{}\": {}", p.at, CatalogProblem(p));
}

std::string CatalogUnsupported(const JsonProblem& p) {
  return fmt::format("field \"{}\": not supported: {}", p.at, p.detail);
}

std::string CatalogUnknownMember(const JsonProblem& p) {
  return fmt::format("unknown field \"{}\"", p.member);
}

}  // namespace

// Each row: the root's name, null is absent, integers from strings and 1.0, then the wording.
constexpr JsonDialect kMlV1JsonDialect{
    "", true, true, MlV1ValueError, GoogleUnknownMember, MlV1Unsupported};
constexpr JsonDialect kVertexJsonDialect{
    "root", true, true, VertexValueError, GoogleUnknownMember, VertexUnsupported};
constexpr JsonDialect kKubeJsonDialect{"", true, false, KubeValueError, nullptr, KubeUnsupported};
constexpr JsonDialect kTrainyardJsonDialect{
    "", false, false, TrainyardValueError, TrainyardUnknownMember, TrainyardUnsupported};
constexpr JsonDialect kStorageJsonDialect{
    "resource", false, true, StorageValueError, StorageUnknownMember, StorageUnsupported};
constexpr JsonDialect kCatalogJsonDialect{
    "", false, false, CatalogValueError, CatalogUnknownMember, CatalogUnsupported};

}  // namespace trainyard
