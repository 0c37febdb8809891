#include "model/json_encode.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "model/fields.h"

namespace trainyard::model::internal {
namespace {

using nlohmann::ordered_json;

template <typename T>
inline constexpr bool kIsOptional = false;
template <typename T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

// proto3: zero, empty and unset values are left out; an optional is emitted whenever it holds a
// value, so presence survives a round trip (`enableWebAccess: false`, `minValue: 0`, `{}`).
template <typename T>
bool IsSet(const T& value) {
  if constexpr (kIsOptional<T>) {
    return value.has_value();
  } else if constexpr (std::is_same_v<T, bool>) {
    return value;
  } else if constexpr (std::is_arithmetic_v<T>) {
    return value != 0;
  } else if constexpr (std::is_enum_v<T>) {
    return value != T{};
  } else {
    return !value.empty();
  }
}

// Model values to JSON values by their C++ type; the inverse of the decoder's `Read`.
struct Encoder {
  template <fields::Message M>
  static ordered_json Write(const M& message);

  static ordered_json Write(const std::string& value) { return value; }
  static ordered_json Write(std::int64_t value) { return std::to_string(value); }  // int64: string
  static ordered_json Write(std::int32_t value) { return value; }
  static ordered_json Write(double value) { return value; }
  static ordered_json Write(bool value) { return value; }
  static ordered_json Write(WallTime value) { return FormatTimestamp(value); }
  static ordered_json Write(Duration value) { return FormatDuration(value); }

  template <typename E>
  requires std::is_enum_v<E>
  static ordered_json Write(E value) { return std::string(fields::EnumInfo<E>::Name(value)); }

  template <typename T>
  static ordered_json Write(const std::optional<T>& value) {
    return Write(*value);
  }

  template <typename T>
  static ordered_json Write(const std::vector<T>& values) {
    ordered_json out = ordered_json::array();
    for (const T& value : values) {
      out.push_back(Write(value));
    }
    return out;
  }

  static ordered_json Write(const std::map<std::string, std::string>& values) {
    ordered_json out = ordered_json::object();
    for (const auto& [key, value] : values) {
      out[key] = value;
    }
    return out;
  }
};

// Visits one message's fields for `VisitFields`, adding the set ones to `out` in schema order.
class FieldWriter {
 public:
  explicit FieldWriter(ordered_json& out) : out_(out) {}

  template <typename T>
  void Field(std::string_view name, const T& value) {
    if (IsSet(value)) {
      out_[std::string(name)] = Encoder::Write(value);
    }
  }
  void Bytes(std::string_view name, const std::string& value) {
    if (!value.empty()) {
      out_[std::string(name)] = value;
    }
  }
  void Unsupported(std::string_view /*name*/, std::string_view /*why*/) {}

 private:
  ordered_json& out_;
};

template <fields::Message M>
ordered_json Encoder::Write(const M& message) {
  ordered_json out = ordered_json::object();
  FieldWriter writer(out);
  fields::VisitFields(writer, message);
  return out;
}

}  // namespace

ordered_json EncodeJobValue(const Job& job) {
  return Encoder::Write(job);
}

ordered_json EncodeTrainingInputValue(const TrainingInput& input) {
  return Encoder::Write(input);
}

}  // namespace trainyard::model::internal
