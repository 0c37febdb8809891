// The one strict JSON reader: it walks an already parsed nlohmann::json, takes members by name
// with the type it expects, remembers which members it took, and reports type errors and unknown
// members as values naming the field path ("trainingInput.masterConfig.imageUri"), worded in the
// dialect of the API being read (base/json_dialects.h). Pure; one reader per document, not
// shared between threads.
//
// Its users, and what each brought to it (the first four used to be four walkers of their own):
// - model/json_decode.cc (ml v1 jobs, API bodies and config files): walks the model by
//   reflection (fields::VisitFields) and reports every problem as a google.rpc field violation
//   that quotes the value and names the proto type: "Invalid value at 'trainingInput.scaleTier'
//   (type.googleapis.com/google.cloud.ml.v1.TrainingInput.ScaleTier), "X": accepted names are
//   …"; unknown members "Invalid JSON payload received. Unknown name "x" at 'job': Cannot find
//   field.", on the parent with the member's own path as locus. Integers as numbers or decimal
//   strings (proto3 JSON); null means unset; strings must be UTF-8; the root has a name ("job").
// - vertex/*_decode.cc (Vertex AI bodies): takes members by name with getters that return the
//   value; google.rpc violations in shorter words, "Invalid value at 'jobSpec.x': expected an
//   integer", the root named "root"; the same unknown-member wording as ml v1.
// - kube/tfjob_decode.cc, kube/pod_decode.cc (TFJob bodies): dispatches on each member's name
//   rather than taking by name, and reports unknown members as a list of paths for the server's
//   fieldValidation (Strict: "strict decoding error: unknown field "spec.x"", Warn: warnings),
//   not as errors; type errors as Go's encoding/json words them, "json: cannot unmarshal string
//   into Go struct field ReplicaSpec.spec.tfReplicaSpecs.PS.replicas of type int32", the first
//   only (apimachinery stops there). No integers from strings or from 1.0.
// - catalog/json_reader.cc (the catalog's data files): required members, the first problem only,
//   "field "zones": expected an array", "unknown field "x"", inside "<file>: <entry>: …"; a
//   null is a wrong type, not an absent member.
// - sched/sharing_json.cc (trainyard v1's sharing policy: quotas, priority classes): each
//   violation on the member it is about, in the body's order, "expected a whole number, got
//   "64"" (the expected part the caller's words: "a quantity such as "256Gi""); unknown members
//   "unknown field: expected project, accelerators, cpus, memory, jobs or weight", which lists the
//   names the object takes. A null is a wrong type; integers only as JSON integers.
// - api/logging/handlers.cc (Cloud Logging's entries.list body) and server/json_body.cc
//   (the bodies of ml v1's and Vertex's field-less requests, a cancel's): ml v1's words; an
//   unknown member of the request itself is "Unknown name "x": Cannot find field.", as Google
//   words it at the root.
// - api/storage/rules.cc, bucket_fields.cc (Cloud Storage's object, compose and bucket bodies):
//   each violation on its member, "Invalid value for labels.k: a string or null." (the caller's
//   words for what goes there), "The bucket field x is not known to this server."; a null is read
//   (a PATCH's null clears), not absent.
//
// What differs between them is data: a `JsonDialect` (which words, how null and integers are
// read, the root's name). What is shared is here: the type checks, integer ranges, paths, the
// record of members taken, unknown members.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainyard {

// What a read expected to find.
enum class JsonExpected : std::uint8_t {
  kString,
  kInt32,
  kInt64,
  kBool,
  kNumber,
  kObject,
  kArray,
  kStringList,
  kStringMap,
};

// Why a value (or a member) was refused.
enum class JsonFault : std::uint8_t {
  kWrongType,      // not the JSON type expected
  kNotIntegral,    // a number with a fraction where an integer goes
  kNotDecimal,     // a string that is not a base-10 integer where an integer goes
  kOutOfRange,     // an integer outside the range of the type expected
  kNotFinite,      // a number too large for a double (1e999)
  kNotUtf8,        // a string that is not well-formed UTF-8
  kBadItem,        // an item of a string list or string map that is not a string
  kNullItem,       // a null item of a list or map
  kBadKey,         // a map key that is not well-formed UTF-8
  kMissing,        // a required member is absent
  kUnknownMember,  // a member no read took
  kUnsupported,    // a member the API knows and this server refuses (`detail` says why)
  kInvalid,        // the caller's own check failed (`detail` says how)
};

// The names an API gives the type read, for dialects that quote them.
struct JsonNames {
  std::string_view type;   // the value's: "TYPE_INT32", "int32", "type.googleapis.com/…"
  std::string_view item;   // an item's, for lists and maps: "string"
  std::string_view owner;  // the type that holds the field: Go's "ReplicaSpec"
};

// One problem, as the dialect sees it to word it.
struct JsonProblem {
  JsonFault fault = JsonFault::kInvalid;
  JsonExpected expected = JsonExpected::kObject;
  std::string_view at;      // the path shown: the member's or item's, the root by its name
  std::string_view parent;  // the object or list that holds it (== at for a whole value)
  std::string_view member;  // the member's or map key's name, when the problem is about one
  const nlohmann::json* value = nullptr;  // what was refused, when there is a value
  JsonNames names;
  std::string_view detail;  // kUnsupported, kInvalid: the caller's words
  // kUnknownMember: the names the object takes, in the order taken (for dialects that list them).
  std::span<const std::string> known;
};

// A problem worded: the field it is reported on, the message, and where in the document it
// points (an unknown member is reported on its parent but located at its own key).
struct JsonError {
  std::string field;
  std::string message;
  std::string locus;
};

// An API's wording and reading rules. Data: a few flags and plain functions, one per kind of
// problem; base/json_dialects.h has them all.
struct JsonDialect {
  std::string_view root_name;     // how messages name the root (the empty path)
  bool null_is_absent = true;     // proto3 and Go: a null member is unset
  bool lenient_integers = false;  // proto3 JSON: "12" and 12.0 are the integer 12
  // Every dialect words value errors and refused members.
  std::string (*value_error)(const JsonProblem&) = nullptr;
  // Null: unknown members are only listed (`JsonReader::unknown`), not reported.
  std::string (*unknown_member)(const JsonProblem&) = nullptr;
  std::string (*unsupported)(const JsonProblem&) = nullptr;
};

// `text` as a quoted JSON string for an error message: escaped, invalid UTF-8 replaced, and
// shortened to about 100 bytes.
std::string QuoteForMessage(std::string_view text);

// "a.b" for the member b of a, "b" at the root.
std::string JsonChildPath(std::string_view parent, std::string_view name);
// "a[2]".
std::string JsonIndexPath(std::string_view parent, std::size_t index);

// Reads single values at a path, and reports what is wrong with them to its sink (each API keeps
// problems its own way: all of them, the first 50, the first one).
class JsonReader {
 public:
  using Sink = std::function<void(JsonError)>;

  // `root_name` replaces the dialect's name of the root when not empty.
  JsonReader(const JsonDialect& dialect, Sink sink, std::string_view root_name = {});

  const JsonDialect& dialect() const { return dialect_; }

  // Each read stores the value in `out` and returns true, or returns false leaving `out` as it
  // was: silently for a null where the dialect reads null as absent, after reporting otherwise.
  bool String(const nlohmann::json& value, std::string_view path, std::string& out,
              const JsonNames& names = {});
  bool Int32(const nlohmann::json& value, std::string_view path, std::int32_t& out,
             const JsonNames& names = {});
  bool Int64(const nlohmann::json& value, std::string_view path, std::int64_t& out,
             const JsonNames& names = {});
  bool Bool(const nlohmann::json& value, std::string_view path, bool& out,
            const JsonNames& names = {});
  bool Number(const nlohmann::json& value, std::string_view path, double& out,
              const JsonNames& names = {});
  // Type checks only: true when `value` is an object (an array).
  bool Object(const nlohmann::json& value, std::string_view path, const JsonNames& names = {});
  bool Array(const nlohmann::json& value, std::string_view path, const JsonNames& names = {});
  // A list of strings; a bad item is a kBadItem on the list (`out` then unchanged).
  bool StringList(const nlohmann::json& value, std::string_view path, std::vector<std::string>& out,
                  const JsonNames& names = {});
  // An object of strings; each bad key or item is reported (at the item) and skipped.
  bool StringMap(const nlohmann::json& value, std::string_view path,
                 std::map<std::string, std::string>& out, const JsonNames& names = {});

  // Reports `problem` (its `at` and `parent` are paths; the root is shown by name here).
  void Report(JsonProblem problem);
  // The member `name` of the object at `parent` is unknown: listed, and reported when the
  // dialect words unknown members (`known`: the names that object takes).
  void Unknown(std::string_view parent, std::string_view name,
               std::span<const std::string> known = {});
  // The member `name` at `parent` is refused, `why`.
  void Unsupported(std::string_view parent, std::string_view name, std::string_view why);

  // Paths of the unknown members, in the order met.
  std::vector<std::string>& unknown() { return unknown_; }

 private:
  template <typename Int>
  bool Integer(const nlohmann::json& value, std::string_view path, JsonExpected expected, Int& out,
               const JsonNames& names);
  // `is`; a kWrongType reported when not, unless `value` is a null the dialect reads as absent.
  bool OfType(bool is, JsonExpected expected, const nlohmann::json& value, std::string_view path,
              const JsonNames& names);
  bool Absent(const nlohmann::json& value) const {
    return value.is_null() && dialect_.null_is_absent;
  }
  void Refuse(JsonFault fault, JsonExpected expected, std::string_view path,
              const nlohmann::json& value, const JsonNames& names, std::string_view member = {});

  const JsonDialect& dialect_;
  Sink sink_;
  std::string_view root_name_;
  std::vector<std::string> unknown_;
};

// One JSON object, read by taking its members by name; `Finish` reports the members nobody took.
class JsonObject {
 public:
  // `value` must outlive the object. A value that is not an object is reported at `path` once
  // (a kWrongType for kObject, with `names`), and then every member reads as absent.
  JsonObject(JsonReader& reader, const nlohmann::json& value, std::string path,
             const JsonNames& names = {});

  bool is_object() const { return object_ != nullptr; }
  const std::string& path() const { return path_; }
  std::string ChildPath(std::string_view name) const { return JsonChildPath(path_, name); }
  JsonReader& reader() { return reader_; }

  // The member `name`, marked taken: null when absent (or null, where the dialect reads null as
  // absent); a kMissing problem when absent and `required`.
  const nlohmann::json* Take(std::string_view name, bool required = false);

  // The member read as its type; the type's zero (or empty) value when absent or wrong.
  std::string String(std::string_view name, const JsonNames& names = {});
  std::int32_t Int32(std::string_view name, const JsonNames& names = {});
  std::int64_t Int64(std::string_view name, const JsonNames& names = {});
  bool Bool(std::string_view name, const JsonNames& names = {});
  double Number(std::string_view name, const JsonNames& names = {});
  std::vector<std::string> StringList(std::string_view name, const JsonNames& names = {});
  std::map<std::string, std::string> StringMap(std::string_view name, const JsonNames& names = {});
  // A nested object or array to read further: null when absent or of another type (reported).
  const nlohmann::json* Object(std::string_view name, const JsonNames& names = {});
  const nlohmann::json* Array(std::string_view name, const JsonNames& names = {});

  // A member the caller accepts and does not read (output only, say).
  void Ignore(std::string_view name) { taken_.emplace_back(name); }
  // A member refused when set, saying why.
  void Unsupported(std::string_view name, std::string_view why);

  // Reports each member that was not taken, in the object's (sorted) order, with the names taken.
  void Finish();

 private:
  JsonReader& reader_;
  const nlohmann::json* object_;  // null when the value was not an object
  std::string path_;
  std::vector<std::string> taken_;
};

}  // namespace trainyard
