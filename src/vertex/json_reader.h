// Internal to vertex/: Vertex AI's messages read with the base reader (base/json_reader.h) in
// the Vertex dialect (base/json_dialects.h): each `Reader` walks one JSON object, taking members
// by name; a member of the wrong type is a violation with its camelCase path from the resource
// ("Invalid value at 'jobSpec.workerPoolSpecs[0].replicaCount': expected an integer"), and
// `Finish` reports every member nobody took in Google's words ("Invalid JSON payload received.
// Unknown name "x" at 'jobSpec': Cannot find field."). Null means unset, as in proto3. Not
// thread-safe; one reader per object.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json_reader.h"
#include "base/status.h"
#include "base/time_format.h"

namespace trainyard::vertex::internal {

// Violations found so far, shared by the readers of one document.
class Problems {
 public:
  Problems();
  Problems(const Problems&) = delete;
  Problems& operator=(const Problems&) = delete;

  void Add(std::string field, std::string description);
  bool empty() const { return violations_.empty(); }
  // INVALID_ARGUMENT with every violation (OK when there is none).
  Status ToStatus() const;

  JsonReader& reader() { return reader_; }

 private:
  std::vector<FieldViolation> violations_;
  JsonReader reader_;
};

// The base object reader, plus the two shapes Vertex has that JSON does not: a Duration and
// the EnvVar list.
class Reader : public JsonObject {
 public:
  // `object` must outlive the reader. A non-object value is reported at `path` once.
  Reader(const nlohmann::json& object, std::string path, Problems& problems)
      : JsonObject(problems.reader(), object, std::move(path)), problems_(problems) {}

  std::optional<Duration> DurationValue(std::string_view name);  // "3600s"
  // `[{"name": …, "value": …}]`, Vertex's EnvVar list.
  std::vector<std::pair<std::string, std::string>> EnvVars(std::string_view name);

  Problems& problems() { return problems_; }

 private:
  Problems& problems_;
};

// Parses `text` as a JSON object; a syntax error is INVALID_ARGUMENT in Google's words.
Result<nlohmann::json> ParseBody(std::string_view text);

}  // namespace trainyard::vertex::internal
