// Internal to catalog/: reads the members of one JSON object of a data file without throwing,
// with the base reader (base/json_reader.h) in the catalog's dialect (base/json_dialects.h).
//
// Each getter records the first problem it meets (missing member, wrong type, out of range) and
// returns a default; `Finish()` then reports that problem, or a member nobody read (a typo in
// the data), as an INVALID_ARGUMENT naming the file and the entry. The checks that are the
// catalog's own (non-empty strings, minimums, increasing counts) are here. Not thread-safe; one
// reader per object.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/json_reader.h"
#include "base/status.h"

namespace trainyard::catalog::internal {

// Parses `text` as JSON; a syntax error names `file` and the position.
Result<nlohmann::json> ParseJson(std::string_view file, std::string_view text);

// "nvidia-tesla-t4" for "NVIDIA_TESLA_T4": the gcloud flag spelling of an enum name.
std::string FlagSpelling(std::string_view enum_name);

class ObjectReader {
 public:
  // `where` names the object in errors, e.g. "machine_types.json: machine_types[3]".
  ObjectReader(const nlohmann::json& object, std::string where);
  ObjectReader(const ObjectReader&) = delete;
  ObjectReader& operator=(const ObjectReader&) = delete;

  // Adds the entry's name to `where` once it is known: `machine_types[3] ("n1-standard-4")`.
  void Name(std::string_view name);
  const std::string& where() const { return where_; }

  std::string String(std::string_view key);
  std::string OptionalString(std::string_view key);
  int Int(std::string_view key, int min_value);
  int OptionalInt(std::string_view key, int min_value);  // 0 when absent
  double Number(std::string_view key);                   // >= 0
  bool Bool(std::string_view key);
  bool OptionalBool(std::string_view key, bool fallback);
  std::vector<std::string> StringList(std::string_view key, bool required);
  // Positive and strictly increasing; `allow_empty` false requires at least one value.
  std::vector<int> CountList(std::string_view key, bool allow_empty);
  // A member that must be an array (of objects, read with their own readers); null on error.
  const nlohmann::json* Array(std::string_view key, bool required);
  // A member that must be an object; null on error.
  const nlohmann::json* Object(std::string_view key);

  // Records a problem found by the caller (the first one wins).
  void Fail(std::string_view problem);
  bool failed() const { return !error_.empty(); }

  // The first problem, or an unread member, as INVALID_ARGUMENT; OK otherwise.
  Status Finish();

 private:
  void FailField(std::string_view key, std::string_view problem);
  std::string ReadString(const nlohmann::json& value, std::string_view key);
  bool ReadBool(const nlohmann::json& value, std::string_view key);

  std::string where_;
  std::string error_;
  JsonReader reader_;
  JsonObject object_;
};

// Reads a document `{"notes": "...", "<array_key>": [{...}, ...]}`, calling `read_entry` with a
// reader for each element; the reader's `Finish()` is checked after each call.
Status ForEachEntry(std::string_view file, const nlohmann::json& doc, std::string_view array_key,
                    const std::function<void(ObjectReader&)>& read_entry);

// Errors name entries as "<file>: <entry>: <problem>".
Status EntryError(std::string_view where, std::string_view problem);

}  // namespace trainyard::catalog::internal
