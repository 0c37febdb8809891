#include "api/storage/rules.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <iterator>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/json_dialects.h"

namespace trainyard::server {
namespace {

std::optional<std::int64_t> Number(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

Status BadRange(std::string description) {
  return Status::InvalidArgument({{"Content-Range", std::move(description)}});
}

// What every method accepts and ignores: one generation per object and no ACLs, so the
// projection changes nothing; no billing projects.
constexpr std::array<std::string_view, 3> kIgnoredEverywhere = {"projection", "userProject", "alt"};

struct MethodParams {
  std::string_view method;
  std::vector<std::string_view> own;
  bool preconditions = false;         // ifGenerationMatch, … (on the object or destination)
  bool source_preconditions = false;  // ifSourceGenerationMatch, …
};

// GCS's JSON API reference, per method.
const std::vector<MethodParams>& MethodTable() {
  static const std::vector<MethodParams> table = {
      {"storage.buckets.insert",
       {"project", "predefinedAcl", "predefinedDefaultObjectAcl", "enableObjectRetention"}},
      {"storage.buckets.list", {"project", "maxResults", "pageToken", "prefix"}},
      {"storage.buckets.get", {"ifMetagenerationMatch", "ifMetagenerationNotMatch"}},
      {"storage.buckets.delete", {"ifMetagenerationMatch", "ifMetagenerationNotMatch"}},
      {"storage.buckets.patch",
       {"ifMetagenerationMatch", "ifMetagenerationNotMatch", "predefinedAcl",
        "predefinedDefaultObjectAcl"}},
      {"storage.buckets.update",
       {"ifMetagenerationMatch", "ifMetagenerationNotMatch", "predefinedAcl",
        "predefinedDefaultObjectAcl"}},
      {"storage.buckets.getStorageLayout", {"prefix"}},
      {"storage.managedFolders.list", {"prefix", "pageSize", "pageToken"}},
      // `force` is the Node.js client's: its `deleteFiles(query)` sends the whole query to
      // each objects.list (and delete); GCS ignores it (docs/reference/ai-platform-training.md
      // §11.1).
      {"storage.objects.list",
       {"prefix", "delimiter", "maxResults", "pageToken", "versions", "includeTrailingDelimiter",
        "includeFoldersAsPrefixes", "startOffset", "endOffset", "matchGlob", "force"}},
      {"storage.objects.get", {"generation"}, true},
      // Past `generation` and `force`, the listing's parameters, which the Node.js client's
      // `deleteFiles({prefix, …})` sends with each object's delete and GCS ignores there (the same
      // §11.1).
      {"storage.objects.delete",
       {"generation", "force", "prefix", "delimiter", "maxResults", "pageToken", "versions",
        "includeTrailingDelimiter", "includeFoldersAsPrefixes", "startOffset", "endOffset",
        "matchGlob"},
       true},
      {"storage.objects.compose", {"destinationPredefinedAcl", "kmsKeyName"}, true},
      {"storage.objects.patch",
       {"generation", "predefinedAcl", "projection", "overrideUnlockedRetention"},
       true},
      {"storage.objects.rewrite",
       {"sourceGeneration", "rewriteToken", "maxBytesRewrittenPerCall", "destinationPredefinedAcl",
        "destinationKmsKeyName"},
       true,
       true},
      {"storage.objects.insert",
       {"uploadType", "name", "predefinedAcl", "contentEncoding", "kmsKeyName"},
       true},
      {"storage.objects.upload", {"upload_id", "uploadType", "name"}},
      {"storage.objects.cancelUpload", {"upload_id", "uploadType", "name"}},
  };
  return table;
}

// Each precondition parameter's name (between "if" + infix and the end) and its field.
struct PreconditionField {
  std::string_view suffix;
  std::optional<std::int64_t> Preconditions::*field;
};

constexpr std::array<PreconditionField, 4> kPreconditionFields = {{
    {"GenerationMatch", &Preconditions::if_generation_match},
    {"GenerationNotMatch", &Preconditions::if_generation_not_match},
    {"MetagenerationMatch", &Preconditions::if_metageneration_match},
    {"MetagenerationNotMatch", &Preconditions::if_metageneration_not_match},
}};

std::string ParamName(std::string_view infix, std::string_view suffix) {
  return fmt::format("if{}{}", infix, suffix);
}

}  // namespace

std::vector<std::string> PreconditionParams(std::string_view infix) {
  std::vector<std::string> names;
  names.reserve(kPreconditionFields.size());
  for (const PreconditionField& field : kPreconditionFields) {
    names.push_back(ParamName(infix, field.suffix));
  }
  return names;
}

std::vector<std::string> StorageQueryParams(std::string_view method) {
  std::vector<std::string> params;
  for (const MethodParams& row : MethodTable()) {
    if (row.method != method) {
      continue;
    }
    params.assign(row.own.begin(), row.own.end());
    params.insert(params.end(), kIgnoredEverywhere.begin(), kIgnoredEverywhere.end());
    if (row.preconditions) {
      std::ranges::move(PreconditionParams(), std::back_inserter(params));
    }
    if (row.source_preconditions) {
      std::ranges::move(PreconditionParams("Source"), std::back_inserter(params));
    }
  }
  return params;
}

Result<Preconditions> ParsePreconditions(
    const std::vector<std::pair<std::string, std::string>>& query, std::string_view infix) {
  Preconditions out;
  for (const PreconditionField& field : kPreconditionFields) {
    const std::string name = ParamName(infix, field.suffix);
    for (const auto& [key, value] : query) {
      if (key != name) {
        continue;
      }
      out.*field.field = Number(value);
      if (!(out.*field.field).has_value()) {
        return Status::InvalidArgument(
            {{name, fmt::format("Invalid value '{}' for {}: expected a number.", value, name)}});
      }
    }
  }
  return out;
}

Status ReadJsonObject(std::string_view text, std::string_view message, nlohmann::json& json) {
  json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return Status::InvalidArgument({{"body", std::string(message)}});
  }
  return {};
}

JsonReader StorageReader(std::vector<FieldViolation>& violations, std::string_view resource) {
  return JsonReader(
      kStorageJsonDialect,
      [&violations](JsonError error) {
        violations.push_back({std::move(error.locus), std::move(error.message)});
      },
      resource);
}

Status CheckLiveGeneration(const store::ObjectInfo& live, std::string_view generation) {
  if (generation.empty() || generation == std::to_string(live.generation)) {
    return {};
  }
  return Status::NotFound(
      fmt::format("No such object: {}/{}#{}", live.bucket, live.name, generation));
}

Result<std::optional<ByteRange>> RequestedRange(std::string_view header, std::int64_t size) {
  using Range = std::optional<ByteRange>;
  if (!header.starts_with("bytes=") || header.find(',') != std::string_view::npos) {
    return Range();
  }
  const std::string_view spec = header.substr(6);
  const std::size_t dash = spec.find('-');
  if (dash == std::string_view::npos) {
    return Range();
  }
  const std::string_view first_text = spec.substr(0, dash);
  const std::string_view last_text = spec.substr(dash + 1);
  const std::optional<std::int64_t> first = Number(first_text);
  const std::optional<std::int64_t> last = Number(last_text);
  if ((!first_text.empty() && !first.has_value()) || (!last_text.empty() && !last.has_value())) {
    return Range();  // malformed
  }
  if (!first.has_value()) {  // "bytes=-N": the last N bytes
    if (!last.has_value() || *last <= 0) {
      return Range();
    }
    return Range({std::max<std::int64_t>(0, size - *last), size - 1});
  }
  if (*first >= size) {
    return Status::OutOfRange(fmt::format(
        "The requested range starts at byte {}, past the object's {} bytes.", *first, size));
  }
  if (last.has_value() && *last < *first) {
    return Range();
  }
  return Range({*first, last.has_value() ? std::min(*last, size - 1) : size - 1});
}

Result<ChunkRange> ParseContentRange(std::string_view header, std::int64_t body_size) {
  if (header.empty()) {  // the whole object in one request
    return ChunkRange{.first = 0, .length = body_size, .total = body_size};
  }
  const Status bad = BadRange(
      fmt::format("Malformed Content-Range \"{}\"; expected \"bytes A-B/N\", \"bytes A-B/*\", "
                  "\"bytes A-*/N\", \"bytes A-*/*\", \"bytes */N\" or \"bytes */*\".",
                  header));
  const std::size_t slash = header.find('/');
  if (!header.starts_with("bytes ") || slash == std::string_view::npos) {
    return bad;
  }
  const std::string_view range = header.substr(6, slash - 6);
  const std::string_view total_text = header.substr(slash + 1);
  ChunkRange out{.length = body_size};
  if (total_text != "*") {
    out.total = Number(total_text);
    if (!out.total.has_value()) {
      return bad;
    }
  }
  if (range == "*") {
    return body_size == 0 ? Result<ChunkRange>(out) : bad;
  }
  const std::size_t dash = range.find('-');
  if (dash == std::string_view::npos) {
    return bad;
  }
  const std::optional<std::int64_t> first = Number(range.substr(0, dash));
  const std::string_view last_text = range.substr(dash + 1);
  if (!first.has_value()) {
    return bad;
  }
  if (body_size == 0 && last_text == std::to_string(*first - 1)) {
    return out;  // an empty range ends nothing more than "bytes */N" does
  }
  out.first = first;
  if (last_text == "*") {  // the body runs to the object's end: its size, unless announced
    out.total = out.total.value_or(*first + body_size);
    return out;
  }
  const std::optional<std::int64_t> last = Number(last_text);
  if (!last.has_value() || *last < *first) {
    return bad;
  }
  if (*last - *first + 1 != body_size) {
    return BadRange(fmt::format("Content-Range \"{}\" announces {} bytes but the body has {}.",
                                header, *last - *first + 1, body_size));
  }
  return out;
}

namespace {

// A string member of a PATCH body, or null for "" (cleared); nullopt when it is neither.
std::optional<std::string> NullableText(JsonReader& reader, const nlohmann::json& value,
                                        std::string_view member) {
  std::string text;
  if (value.is_null() || reader.String(value, member, text, {.type = "a string or null"})) {
    return text;
  }
  return std::nullopt;
}

// A map member of a PATCH body (an object's `metadata`): null clears every key; in an object, a
// string sets its key and null removes it.
store::KeyChanges KeyChangesOf(JsonReader& reader, const nlohmann::json& value,
                               std::string_view member) {
  store::KeyChanges changes{.clear = value.is_null()};
  if (value.is_null() || !reader.Object(value, member, {.type = "an object or null"})) {
    return changes;
  }
  for (const auto& [name, entry] : value.items()) {
    if (entry.is_null()) {
      changes.keys[name] = std::nullopt;
    } else if (std::optional<std::string> text =
                   NullableText(reader, entry, JsonChildPath(member, name))) {
      changes.keys[name] = *std::move(text);
    }
  }
  return changes;
}

// The object resource's output-only members: a client may send them back, unchanged or not.
constexpr std::array<std::string_view, 16> kObjectOutputOnly = {
    "kind",        "id",         "selfLink",       "mediaLink", "name",
    "bucket",      "generation", "metageneration", "size",      "md5Hash",
    "crc32c",      "etag",       "timeCreated",    "updated",   "timeStorageClassUpdated",
    "storageClass"};

// The object resource `object` (a PATCH's, a write's) as the change it asks for, ParseObjectPatch's
// rules; its members not taken before are then unknown.
store::ObjectPatch ReadObjectResource(JsonObject& object) {
  JsonReader& reader = object.reader();
  for (const std::string_view name : kObjectOutputOnly) {
    object.Ignore(name);
  }
  store::ObjectPatch patch;
  if (const nlohmann::json* value = object.Take("contentType")) {
    patch.content_type = NullableText(reader, *value, object.ChildPath("contentType"));
  }
  for (std::size_t i = 0; i < store::kObjectHeaderFields.size(); ++i) {
    const std::string_view name = store::kObjectHeaderFields[i].json_name;
    if (const nlohmann::json* value = object.Take(name)) {
      patch.headers[i] = NullableText(reader, *value, object.ChildPath(name));
    }
  }
  if (const nlohmann::json* value = object.Take("metadata")) {
    patch.metadata = KeyChangesOf(reader, *value, object.ChildPath("metadata"));
  }
  object.Finish();  // anything else (`acl`, `temporaryHold`, …): this server does not keep it
  return patch;
}

// The object resource a write sends: its `name`, and the rest as a PATCH of nothing reads it (a
// null is no value).
ObjectWrite ObjectWriteOf(JsonObject& object) {
  ObjectWrite write;
  if (const nlohmann::json* name = object.Take("name"); name != nullptr && !name->is_null()) {
    object.reader().String(*name, object.ChildPath("name"), write.name);
  }
  const store::ObjectPatch fields = ReadObjectResource(object);
  write.content_type = fields.content_type.value_or("");
  for (std::size_t i = 0; i < store::kObjectHeaderFields.size(); ++i) {
    write.headers.*store::kObjectHeaderFields[i].field = fields.headers[i].value_or("");
  }
  write.metadata = store::ApplyKeyChanges({}, fields.metadata);
  return write;
}

// A compose source's generation (`member` of `object`): a whole number, 0 or more, as a number or
// a decimal string (GCS sends int64 as strings); nullopt when absent, null or refused.
std::optional<std::int64_t> ReadGeneration(JsonObject& object, std::string_view member) {
  static constexpr JsonNames kGeneration{.type = "a whole number, 0 or more"};
  const nlohmann::json* value = object.Take(member);
  const std::string path = object.ChildPath(member);
  std::int64_t number = 0;
  if (value == nullptr || value->is_null() ||
      !object.reader().Int64(*value, path, number, kGeneration)) {
    return std::nullopt;
  }
  if (number < 0) {
    object.reader().Report({.fault = JsonFault::kOutOfRange,
                            .expected = JsonExpected::kInt64,
                            .at = path,
                            .parent = object.path(),
                            .value = value,
                            .names = kGeneration});
    return std::nullopt;
  }
  return number;
}

// One of a compose's `sourceObjects`, at `path` ("sourceObjects[2]").
ComposeSource ReadComposeSource(JsonReader& reader, const nlohmann::json& value, std::string path) {
  JsonObject source(reader, value, std::move(path));
  ComposeSource out;
  if (const nlohmann::json* name = source.Take("name", /*required=*/true)) {
    const std::string at = source.ChildPath("name");
    if (reader.String(*name, at, out.name) && out.name.empty()) {
      const std::string why = fmt::format("Invalid value for {}: an object name, not empty.", at);
      reader.Report({.fault = JsonFault::kInvalid, .at = at, .detail = why});
    }
  }
  out.generation = ReadGeneration(source, "generation");
  if (const nlohmann::json* conditions = source.Take("objectPreconditions");
      conditions != nullptr && !conditions->is_null()) {
    JsonObject preconditions(reader, *conditions, source.ChildPath("objectPreconditions"));
    out.if_generation_match = ReadGeneration(preconditions, "ifGenerationMatch");
    preconditions.Finish();
  }
  source.Finish();
  return out;
}

}  // namespace

Result<ObjectWrite> ParseObjectWrite(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return ObjectWrite{};
  }
  nlohmann::json json;
  TY_RETURN_IF_ERROR(ReadJsonObject(text, "The object metadata must be a JSON object.", json));
  std::vector<FieldViolation> violations;
  JsonReader reader = StorageReader(violations, "object");
  JsonObject object(reader, json, "");
  ObjectWrite write = ObjectWriteOf(object);
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return write;
}

Result<ComposeRequest> ParseComposeRequest(std::string_view body) {
  nlohmann::json json;
  TY_RETURN_IF_ERROR(ReadJsonObject(
      body, "The request body must be a JSON compose request (sourceObjects, destination).", json));
  std::vector<FieldViolation> violations;
  JsonReader reader = StorageReader(violations, "compose request");
  JsonObject object(reader, json, "");
  object.Ignore("kind");
  ComposeRequest request;
  const nlohmann::json* sources = object.Take("sourceObjects", /*required=*/true);
  if (sources != nullptr && reader.Array(*sources, "sourceObjects")) {
    std::string why;
    if (sources->empty()) {
      why = "Required: at least one source object.";
    } else if (sources->size() > kMaxComposeSources) {
      why = fmt::format("The number of source components provided ({}) exceeds the maximum ({}).",
                        sources->size(), kMaxComposeSources);
    }
    if (!why.empty()) {
      reader.Report({.fault = JsonFault::kInvalid, .at = "sourceObjects", .detail = why});
    } else {
      for (std::size_t i = 0; i < sources->size(); ++i) {
        request.sources.push_back(
            ReadComposeSource(reader, (*sources)[i], JsonIndexPath("sourceObjects", i)));
      }
    }
  }
  if (const nlohmann::json* destination = object.Take("destination");
      destination != nullptr && !destination->is_null()) {
    JsonObject resource(reader, *destination, "destination");
    request.destination = ObjectWriteOf(resource);
  }
  object.Finish();
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return request;
}

Status CheckComposeSource(const ComposeSource& source, const store::ObjectInfo& live) {
  if (source.generation.has_value()) {
    TY_RETURN_IF_ERROR(CheckLiveGeneration(live, std::to_string(*source.generation)));
  }
  if (source.if_generation_match.has_value() && *source.if_generation_match != live.generation) {
    return store::ConditionNotMet();
  }
  return {};
}

Result<store::ObjectPatch> ParseObjectPatch(std::string_view body) {
  nlohmann::json json;
  TY_RETURN_IF_ERROR(ReadJsonObject(
      body, "The request body must be a JSON object (a partial object resource).", json));
  std::vector<FieldViolation> violations;
  JsonReader reader = StorageReader(violations, "object");
  JsonObject object(reader, json, "");
  store::ObjectPatch patch = ReadObjectResource(object);
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return patch;
}

}  // namespace trainyard::server
