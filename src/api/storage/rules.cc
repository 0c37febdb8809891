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

ObjectWrite ObjectWriteOf(const nlohmann::json& json) {
  ObjectWrite out;
  if (json.contains("name") && json["name"].is_string()) {
    out.name = json["name"].get<std::string>();
  }
  if (json.contains("contentType") && json["contentType"].is_string()) {
    out.content_type = json["contentType"].get<std::string>();
  }
  for (const store::ObjectHeaderField& field : store::kObjectHeaderFields) {
    const auto value = json.find(field.json_name);
    if (value != json.end() && value->is_string()) {
      out.headers.*field.field = value->get<std::string>();
    }
  }
  if (json.contains("metadata") && json["metadata"].is_object()) {
    for (const auto& [key, value] : json["metadata"].items()) {
      out.metadata[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  return out;
}

// An int64 member as GCS sends it (a decimal string, read as the query's numbers are) or as a
// number; nullopt when absent, and a violation when it is neither.
std::optional<std::int64_t> Int64Member(const nlohmann::json& json, const char* key,
                                        const std::string& where,
                                        std::vector<FieldViolation>& violations) {
  const auto value = json.find(key);
  if (value == json.end() || value->is_null()) {
    return std::nullopt;
  }
  if (value->is_number_integer()) {
    return value->get<std::int64_t>();
  }
  if (value->is_string()) {
    if (std::optional<std::int64_t> number = Number(value->get<std::string>())) {
      return number;
    }
  }
  violations.push_back({where, fmt::format("Invalid value for {}: a whole number.", where)});
  return std::nullopt;
}

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

}  // namespace

Result<ObjectWrite> ParseObjectWrite(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return ObjectWrite{};
  }
  const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return Status::InvalidArgument({{"body", "The object metadata must be a JSON object."}});
  }
  return ObjectWriteOf(json);
}

Result<ComposeRequest> ParseComposeRequest(std::string_view body) {
  const auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return Status::InvalidArgument(
        {{"body",
          "The request body must be a JSON compose request (sourceObjects, destination)."}});
  }
  const auto sources = json.find("sourceObjects");
  if (sources == json.end() || !sources->is_array() || sources->empty()) {
    return Status::InvalidArgument({{"sourceObjects", "Required: at least one source object."}});
  }
  if (sources->size() > kMaxComposeSources) {
    return Status::InvalidArgument(
        {{"sourceObjects",
          fmt::format("The number of source components provided ({}) exceeds the maximum ({}).",
                      sources->size(), kMaxComposeSources)}});
  }
  ComposeRequest request;
  std::vector<FieldViolation> violations;
  for (std::size_t i = 0; i < sources->size(); ++i) {
    const nlohmann::json& source = (*sources)[i];
    const std::string where = fmt::format("sourceObjects[{}]", i);
    if (!source.is_object() || !source.contains("name") || !source["name"].is_string() ||
        source["name"].get<std::string>().empty()) {
      violations.push_back({where + ".name", "Required: the source object's name."});
      continue;
    }
    ComposeSource parsed{.name = source["name"].get<std::string>()};
    parsed.generation = Int64Member(source, "generation", where + ".generation", violations);
    const auto conditions = source.find("objectPreconditions");
    if (conditions != source.end() && conditions->is_object()) {
      parsed.if_generation_match =
          Int64Member(*conditions, "ifGenerationMatch",
                      where + ".objectPreconditions.ifGenerationMatch", violations);
    }
    request.sources.push_back(std::move(parsed));
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  const auto destination = json.find("destination");
  if (destination != json.end() && destination->is_object()) {
    request.destination = ObjectWriteOf(*destination);
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
  // The object resource's output-only members: a client may send them back, unchanged or not.
  static constexpr std::array<std::string_view, 16> kOutputOnly = {
      "kind",        "id",         "selfLink",       "mediaLink", "name",
      "bucket",      "generation", "metageneration", "size",      "md5Hash",
      "crc32c",      "etag",       "timeCreated",    "updated",   "timeStorageClassUpdated",
      "storageClass"};
  const auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return Status::InvalidArgument(
        {{"body", "The request body must be a JSON object (a partial object resource)."}});
  }
  store::ObjectPatch patch;
  std::vector<FieldViolation> violations;
  JsonReader reader = StorageReader(violations, "object");
  JsonObject object(reader, json, "");
  for (const std::string_view name : kOutputOnly) {
    object.Ignore(name);
  }
  if (const nlohmann::json* value = object.Take("contentType")) {
    patch.content_type = NullableText(reader, *value, "contentType");
  }
  for (std::size_t i = 0; i < store::kObjectHeaderFields.size(); ++i) {
    const std::string_view name = store::kObjectHeaderFields[i].json_name;
    if (const nlohmann::json* value = object.Take(name)) {
      patch.headers[i] = NullableText(reader, *value, name);
    }
  }
  if (const nlohmann::json* value = object.Take("metadata")) {
    patch.metadata = KeyChangesOf(reader, *value, "metadata");
  }
  object.Finish();  // anything else (`acl`, `temporaryHold`, …): this server does not keep it
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return patch;
}

}  // namespace trainyard::server
