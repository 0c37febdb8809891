#include "model/json_decode.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/json_dialects.h"
#include "base/json_reader.h"
#include "base/time_format.h"
#include "model/fields.h"
#include "model/wire_text.h"

namespace trainyard::model::internal {
namespace {

using nlohmann::json;

constexpr std::string_view kTimestampType = "type.googleapis.com/google.protobuf.Timestamp";
constexpr std::string_view kDurationType = "type.googleapis.com/google.protobuf.Duration";

class Decoder;

// Visits one JSON object's fields for `VisitFields`; the object remembers which names the schema
// knows.
class FieldReader {
 public:
  FieldReader(Decoder& decoder, JsonObject& object) : decoder_(decoder), object_(object) {}

  template <typename T>
  void Field(std::string_view name, T& value);
  void Bytes(std::string_view name, std::string& value);
  void Unsupported(std::string_view name, std::string_view why) { object_.Unsupported(name, why); }

 private:
  Decoder& decoder_;
  JsonObject& object_;
};

// Reads JSON values into model values by their C++ type, with the base reader's checks and the
// ml v1 dialect's words (base/json_dialects.h).
class Decoder {
 public:
  Decoder(std::string_view root_name, Violations& out)
      : reader_(
            kMlV1JsonDialect,
            [&out](JsonError error) {
              out.Add(std::move(error.field), std::move(error.message), std::move(error.locus));
            },
            root_name) {}

  template <fields::Message M>
  void Read(const json& j, const std::string& path, M& message) {
    const std::string type = fmt::format("type.googleapis.com/{}", fields::kMessageName<M>);
    JsonObject object(reader_, j, path, {.type = type});
    if (!object.is_object()) {
      return;
    }
    FieldReader reader(*this, object);
    fields::VisitFields(reader, message);
    object.Finish();
  }

  void Read(const json& j, const std::string& path, std::int64_t& out) {
    reader_.Int64(j, path, out, {.type = "TYPE_INT64"});
  }
  void Read(const json& j, const std::string& path, std::int32_t& out) {
    reader_.Int32(j, path, out, {.type = "TYPE_INT32"});
  }
  void Read(const json& j, const std::string& path, double& out) {
    reader_.Number(j, path, out, {.type = "TYPE_DOUBLE"});
  }
  void Read(const json& j, const std::string& path, bool& out) {
    reader_.Bool(j, path, out, {.type = "TYPE_BOOL"});
  }
  void Read(const json& j, const std::string& path, std::string& out) {
    reader_.String(j, path, out, {.type = "TYPE_STRING"});
  }
  void Read(const json& j, const std::string& path, std::map<std::string, std::string>& out) {
    reader_.StringMap(j, path, out, {.item = "TYPE_STRING"});
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
    if (!reader_.Array(j, path)) {
      return;
    }
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
      const std::string item = JsonIndexPath(path, i);
      if (j[i].is_null()) {
        reader_.Report({.fault = JsonFault::kNullItem,
                        .expected = JsonExpected::kArray,
                        .at = item,
                        .parent = path,
                        .value = &j[i]});
      } else {
        Read(j[i], item, out.emplace_back());
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

 private:
  // A value of the right JSON type that is still not one of `type`'s values, `why`.
  void Invalid(const std::string& path, std::string_view type, const json& value,
               std::string_view why) {
    reader_.Report({.fault = JsonFault::kInvalid,
                    .at = path,
                    .parent = path,
                    .value = &value,
                    .names = {.type = type},
                    .detail = why});
  }

  JsonReader reader_;
};

template <typename T>
void FieldReader::Field(std::string_view name, T& value) {
  if (const json* j = object_.Take(name)) {
    decoder_.Read(*j, object_.ChildPath(name), value);
  }
}

void FieldReader::Bytes(std::string_view name, std::string& value) {
  if (const json* j = object_.Take(name)) {
    decoder_.ReadBytes(*j, object_.ChildPath(name), value);
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
