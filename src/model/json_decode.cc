#include "model/json_decode.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "base/utf8.h"
#include "model/fields.h"
#include "model/wire_text.h"

namespace trainyard::model::internal {
namespace {

using nlohmann::json;

constexpr std::string_view kTimestampType = "type.googleapis.com/google.protobuf.Timestamp";
constexpr std::string_view kDurationType = "type.googleapis.com/google.protobuf.Duration";

// A JSON value as a message shows it: scalars as written, containers by kind (never dumped whole:
// they may be huge or deeply nested).
std::string Show(const json& j) {
  if (j.is_string()) {
    return QuoteForMessage(j.get_ref<const std::string&>());
  }
  if (j.is_object()) {
    return "{...}";
  }
  if (j.is_array()) {
    return "[...]";
  }
  return j.dump();  // number, boolean or null
}

template <typename Int>
std::string OutOfRange() {
  return fmt::format("out of range [{}, {}]", std::numeric_limits<Int>::min(),
                     std::numeric_limits<Int>::max());
}

// Why `j` is not an `Int`, or "" when it is one (then stored in `out`). proto3 JSON accepts both
// numbers and decimal strings for every integer type.
template <typename Int>
std::string ReadInteger(const json& j, Int& out) {
  constexpr Int kMin = std::numeric_limits<Int>::min();
  constexpr Int kMax = std::numeric_limits<Int>::max();
  if (j.is_number_unsigned()) {
    const auto value = j.get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(kMax)) {
      return OutOfRange<Int>();
    }
    out = static_cast<Int>(value);
    return "";
  }
  if (j.is_number_integer()) {
    const auto value = j.get<std::int64_t>();
    if (value < kMin || value > kMax) {
      return OutOfRange<Int>();
    }
    out = static_cast<Int>(value);
    return "";
  }
  if (j.is_number_float()) {
    const double value = j.get<double>();
    if (!std::isfinite(value) || std::trunc(value) != value) {
      return "not an integer";
    }
    // -kMin is a power of two, exact as a double; every integral double below it converts safely.
    if (value < static_cast<double>(kMin) || value >= -static_cast<double>(kMin)) {
      return OutOfRange<Int>();
    }
    out = static_cast<Int>(value);
    return "";
  }
  if (j.is_string()) {
    const auto& text = j.get_ref<const std::string&>();
    const char* end = text.data() + text.size();
    Int value{};
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ptr != end || ec == std::errc::invalid_argument) {
      return "not a base-10 integer";
    }
    if (ec == std::errc::result_out_of_range) {
      return OutOfRange<Int>();
    }
    out = value;
    return "";
  }
  return "expected an integer, as a number or a decimal string";
}

class Decoder;

// Visits one JSON object's fields for `VisitFields`; remembers which names the schema knows.
class FieldReader {
 public:
  FieldReader(Decoder& decoder, const json& object, const std::string& path)
      : decoder_(decoder), object_(object), path_(path) {}

  template <typename T>
  void Field(std::string_view name, T& value);
  void Bytes(std::string_view name, std::string& value);
  void Unsupported(std::string_view name, std::string_view why);

  // Reports every member of the object that no `Field`/`Bytes`/`Unsupported` named.
  void ReportUnknown();

 private:
  // The member `name` unless absent or null (proto3: null means unset); marks `name` as known.
  const json* Take(std::string_view name) {
    known_.push_back(name);
    const auto it = object_.find(name);
    if (it == object_.end() || it->is_null()) {
      return nullptr;
    }
    return &*it;
  }

  Decoder& decoder_;
  const json& object_;
  const std::string& path_;
  std::vector<std::string_view> known_;
};

// Reads JSON values into model values by their C++ type, reporting problems by path.
class Decoder {
 public:
  Decoder(std::string_view root_name, Violations& out) : root_name_(root_name), out_(out) {}

  template <fields::Message M>
  void Read(const json& j, const std::string& path, M& message) {
    if (!j.is_object()) {
      Invalid(path, fmt::format("type.googleapis.com/{}", fields::kMessageName<M>), j,
              "expected a JSON object");
      return;
    }
    FieldReader reader(*this, j, path);
    fields::VisitFields(reader, message);
    reader.ReportUnknown();
  }

  void Read(const json& j, const std::string& path, std::int64_t& out) {
    ReadInt(j, path, "TYPE_INT64", out);
  }
  void Read(const json& j, const std::string& path, std::int32_t& out) {
    ReadInt(j, path, "TYPE_INT32", out);
  }

  void Read(const json& j, const std::string& path, double& out) {
    if (!j.is_number()) {
      Invalid(path, "TYPE_DOUBLE", j, "expected a number");
    } else if (!std::isfinite(j.get<double>())) {
      Invalid(path, "TYPE_DOUBLE", j, "expected a finite number");
    } else {
      out = j.get<double>();
    }
  }

  void Read(const json& j, const std::string& path, bool& out) {
    if (j.is_boolean()) {
      out = j.get<bool>();
    } else {
      Invalid(path, "TYPE_BOOL", j, "expected true or false");
    }
  }

  void Read(const json& j, const std::string& path, std::string& out) {
    if (!j.is_string()) {
      Invalid(path, "TYPE_STRING", j, "expected a string");
    } else if (!IsValidUtf8(j.get_ref<const std::string&>())) {
      Invalid(path, "TYPE_STRING", j, "not valid UTF-8");
    } else {
      out = j.get<std::string>();
    }
  }

  void Read(const json& j, const std::string& path, WallTime& out) {
    std::optional<WallTime> time;
    if (j.is_string()) {
      time = ParseTimestampInRange(j.get_ref<const std::string&>());
    }
    if (time) {
      out = *time;
    } else {
      Invalid(path, kTimestampType, j, kTimestampForm);
    }
  }

  void Read(const json& j, const std::string& path, Duration& out) {
    std::optional<Duration> duration;
    if (j.is_string()) {
      duration = ParseDurationInRange(j.get_ref<const std::string&>());
    }
    if (duration) {
      out = *duration;
    } else {
      Invalid(path, kDurationType, j, kDurationForm);
    }
  }

  // proto3 JSON accepts an enum by name or by number.
  template <typename E>
  requires std::is_enum_v<E>
  void Read(const json& j, const std::string& path, E& out) {
    using Info = fields::EnumInfo<E>;
    for (const E value : Info::kValues) {
      const bool by_name = j.is_string() && j.get_ref<const std::string&>() == Info::Name(value);
      const bool by_number =
          j.is_number_unsigned() && j.get<std::uint64_t>() == static_cast<std::uint64_t>(value);
      if (by_name || by_number) {
        out = value;
        return;
      }
    }
    std::string names;
    for (const E value : Info::kValues) {
      names += fmt::format("{}{}", names.empty() ? "" : ", ", Info::Name(value));
    }
    Invalid(path, fmt::format("type.googleapis.com/{}", Info::kName), j,
            "accepted names are " + names);
  }

  template <typename T>
  void Read(const json& j, const std::string& path, std::optional<T>& out) {
    Read(j, path, out.emplace());
  }

  template <typename T>
  void Read(const json& j, const std::string& path, std::vector<T>& out) {
    if (!j.is_array()) {
      Invalid(path, "", j, "expected a JSON array");
      return;
    }
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
      const std::string item = IndexPath(path, i);
      if (j[i].is_null()) {
        Invalid(item, "", j[i], "null is not allowed in a list");
      } else {
        Read(j[i], item, out.emplace_back());
      }
    }
  }

  void Read(const json& j, const std::string& path, std::map<std::string, std::string>& out) {
    if (!j.is_object()) {
      Invalid(path, "", j, "expected a JSON object of strings");
      return;
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!IsValidUtf8(it.key())) {
        Invalid(path, "", json(it.key()), "a key is not valid UTF-8");
        continue;
      }
      const std::string item = ChildPath(path, it.key());
      if (it->is_null()) {
        Invalid(item, "", *it, "null is not allowed as a map value");
      } else {
        Read(*it, item, out[it.key()]);
      }
    }
  }

  void ReadBytes(const json& j, const std::string& path, std::string& out) {
    if (j.is_string() && IsPaddedBase64(j.get_ref<const std::string&>())) {
      out = j.get<std::string>();
    } else {
      Invalid(path, "TYPE_BYTES", j, "expected padded base64 (RFC 4648)");
    }
  }

  // The path as shown to users: the root has its own name.
  std::string Where(const std::string& path) const {
    return path.empty() ? std::string(root_name_) : path;
  }

  void Add(std::string field, std::string description, std::string locus = "") {
    out_.Add(std::move(field), std::move(description), std::move(locus));
  }

 private:
  template <typename Int>
  void ReadInt(const json& j, const std::string& path, std::string_view type, Int& out) {
    const std::string why = ReadInteger(j, out);
    if (!why.empty()) {
      Invalid(path, type, j, why);
    }
  }

  // Google's wording, "Invalid value at 'path' (TYPE), value", plus what is accepted.
  void Invalid(const std::string& path, std::string_view type, const json& value,
               std::string_view why) {
    const std::string where = Where(path);
    const std::string type_part = type.empty() ? "" : fmt::format(" ({})", type);
    out_.Add(where,
             fmt::format("Invalid value at '{}'{}, {}: {}", where, type_part, Show(value), why));
  }

  std::string_view root_name_;
  Violations& out_;
};

template <typename T>
void FieldReader::Field(std::string_view name, T& value) {
  if (const json* j = Take(name)) {
    decoder_.Read(*j, ChildPath(path_, name), value);
  }
}

void FieldReader::Bytes(std::string_view name, std::string& value) {
  if (const json* j = Take(name)) {
    decoder_.ReadBytes(*j, ChildPath(path_, name), value);
  }
}

void FieldReader::Unsupported(std::string_view name, std::string_view why) {
  if (Take(name) != nullptr) {
    const std::string path = ChildPath(path_, name);
    decoder_.Add(
        path, fmt::format("Invalid JSON payload received. '{}' is not supported: {}.", path, why));
  }
}

void FieldReader::ReportUnknown() {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (std::find(known_.begin(), known_.end(), it.key()) != known_.end()) {
      continue;
    }
    const std::string where = decoder_.Where(path_);
    decoder_.Add(where,
                 fmt::format("Invalid JSON payload received. Unknown name {} at '{}': "
                             "Cannot find field.",
                             QuoteForMessage(it.key()), where),
                 ChildPath(path_, it.key()));
  }
}

}  // namespace

void DecodeJobValue(const json& root, std::string_view root_name, Job& job, Violations& out) {
  Decoder(root_name, out).Read(root, "", job);
}

void DecodeTrainingInputValue(const json& root, std::string_view root_name, TrainingInput& input,
                              Violations& out) {
  Decoder(root_name, out).Read(root, "", input);
}

}  // namespace trainyard::model::internal
