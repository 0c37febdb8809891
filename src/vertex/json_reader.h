// Internal to vertex/: a strict proto3-JSON reader for Vertex AI's messages. Each `Reader` walks
// one JSON object; the getters mark a member known, check its JSON type and record a violation
// (path in camelCase from the resource) when it is wrong; `Finish` reports every member nobody
// asked for, in Google's words ("Invalid JSON payload received. Unknown name \"x\" at 'jobSpec':
// Cannot find field."). Null means unset, as in proto3. Not thread-safe; one reader per object.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "base/time_format.h"

namespace trainyard::vertex::internal {

// Violations found so far, shared by the readers of one document.
class Problems {
 public:
  void Add(std::string field, std::string description);
  bool empty() const { return violations_.empty(); }
  // INVALID_ARGUMENT with every violation (OK when there is none).
  Status ToStatus() const;

 private:
  std::vector<FieldViolation> violations_;
};

class Reader {
 public:
  // `object` must outlive the reader. A non-object value is reported at `path` once.
  Reader(const nlohmann::json& object, std::string path, Problems& problems);

  std::string String(std::string_view name);
  std::vector<std::string> Strings(std::string_view name);
  std::int64_t Int64(std::string_view name);  // a number or a decimal string
  std::int32_t Int32(std::string_view name);
  double Double(std::string_view name);
  bool Bool(std::string_view name);
  std::optional<Duration> DurationValue(std::string_view name);  // "3600s"
  std::map<std::string, std::string> StringMap(std::string_view name);
  // `[{"name": …, "value": …}]`, Vertex's EnvVar list.
  std::vector<std::pair<std::string, std::string>> EnvVars(std::string_view name);
  // A nested message or a list of them: null when absent (or malformed, already reported).
  const nlohmann::json* Object(std::string_view name);
  const nlohmann::json* Array(std::string_view name);
  // A field of the API that the caller reads no further (output only, or accepted as is).
  void Ignore(std::string_view name);
  // A field trainyard refuses when set, saying why.
  void Unsupported(std::string_view name, std::string_view why);

  std::string ChildPath(std::string_view name) const;
  const std::string& path() const { return path_; }
  Problems& problems() { return problems_; }

  // Reports the members no getter named.
  void Finish();

 private:
  const nlohmann::json* Take(std::string_view name);
  void Wrong(std::string_view name, std::string_view expected);

  const nlohmann::json* object_;  // null when the value was not an object
  std::string path_;
  Problems& problems_;
  std::vector<std::string> known_;
};

// Parses `text` as a JSON object; a syntax error is INVALID_ARGUMENT in Google's words.
Result<nlohmann::json> ParseBody(std::string_view text);

}  // namespace trainyard::vertex::internal
