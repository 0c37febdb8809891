// Internal to kube/: the reader the TFJob decoder is built on, base/json_reader.h in Kubernetes'
// dialect. It checks each value's JSON type against the Go type the operator declares, keeps the
// first type error (as apimachinery stops at the first), and lists unknown and unsupported fields
// as it walks. Not part of the API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json_reader.h"
#include "kube/kube_status.h"
#include "kube/tfjob.h"

namespace trainyard::kube::internal {

using nlohmann::json;

// Where a value sits: `path` for unknown-field names ("spec.tfReplicaSpecs.PS.replicas"), `field`
// for validation causes ("spec.tfReplicaSpecs[PS].replicas").
struct Location {
  std::string path;
  std::string field;

  Location Key(std::string_view key) const;     // a struct field or a map key
  Location MapKey(std::string_view key) const;  // a map key: "[key]" in `field`
  Location Index(std::size_t index) const;      // "[i]" in both
};

// The base reader (base/json_reader.h) in Kubernetes' dialect, with the Go type names each read
// quotes: `go_struct` names the Go type that holds the field. A JSON null leaves `out` as it was
// (Go leaves the zero value). Only the first type error is kept, as apimachinery stops there.
class Decoder {
 public:
  explicit Decoder(std::string version);
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  void String(const json& value, const Location& at, std::string_view go_struct, std::string& out) {
    reader_.String(value, at.path, out, {.type = "string", .owner = go_struct});
  }
  void OptionalString(const json& value, const Location& at, std::string_view go_struct,
                      std::optional<std::string>& out);
  void Int32(const json& value, const Location& at, std::string_view go_struct,
             std::optional<std::int32_t>& out);
  void Int64(const json& value, const Location& at, std::string_view go_struct,
             std::optional<std::int64_t>& out);
  void Bool(const json& value, const Location& at, std::string_view go_struct, bool& out) {
    reader_.Bool(value, at.path, out, {.type = "bool", .owner = go_struct});
  }
  void Strings(const json& value, const Location& at, std::string_view go_struct,
               std::vector<std::string>& out) {
    reader_.StringList(value, at.path, out,
                       {.type = "[]string", .item = "string", .owner = go_struct});
  }
  void Map(const json& value, const Location& at, std::string_view go_struct, StringMap& out) {
    reader_.StringMap(value, at.path, out,
                      {.type = "map[string]string", .item = "string", .owner = go_struct});
  }
  // Resource quantities: a string or a JSON number (written back as its text).
  void Quantities(const json& value, const Location& at, std::string_view go_struct,
                  StringMap& out);
  void Time(const json& value, const Location& at, std::string_view go_struct,
            std::optional<WallTime>& out);
  // True when `value` is an object (or null: false without an error); a type error otherwise.
  bool Object(const json& value, const Location& at, std::string_view go_struct,
              std::string_view go_type) {
    return reader_.Object(value, at.path, {.type = go_type, .owner = go_struct});
  }
  bool Array(const json& value, const Location& at, std::string_view go_struct,
             std::string_view go_type) {
    return reader_.Array(value, at.path, {.type = go_type, .owner = go_struct});
  }

  // The member `key` of the object at `parent` is unknown: listed by its path, for the server's
  // strict decoding.
  void Unknown(const Location& parent, std::string_view key) { reader_.Unknown(parent.path, key); }
  void Unsupported(const Location& at, std::string_view why) {
    unsupported_.push_back(UnsupportedField{at.field, std::string(why)});
  }
  void Warn(std::string warning) { warnings_.push_back(std::move(warning)); }

  bool failed() const { return error_.has_value(); }
  const KubeError& error() const { return *error_; }
  std::vector<std::string>& unknown() { return reader_.unknown(); }
  std::vector<std::string>& warnings() { return warnings_; }
  std::vector<UnsupportedField>& unsupported() { return unsupported_; }
  const std::string& version() const { return version_; }

 private:
  std::string version_;  // "v1" or "v1beta2"
  // apimachinery's "TFJob in version "v1" cannot be handled as a TFJob: json: cannot unmarshal
  // string into Go struct field ReplicaSpec.spec.tfReplicaSpecs.PS.replicas of type int32".
  std::optional<KubeError> error_;
  JsonReader reader_;
  std::vector<std::string> warnings_;
  std::vector<UnsupportedField> unsupported_;
};

// The pod template of a replica spec (pod_decode.cc).
void DecodeTemplate(Decoder& decoder, const json& value, const Location& at, PodTemplate& out);

// The `status` object of a TFJob (tfjob_status.cc), and the JSON of a pod template
// (tfjob_encode.cc), for the encoders.
nlohmann::ordered_json StatusJson(const TFJobStatus& status);

}  // namespace trainyard::kube::internal
