// The storage v1 API's rules, for handlers.cc and uploads.cc, which decode a request, call the
// store and encode its answer: the query parameters each method accepts, the `Content-Range` of a
// resumable upload's PUT and the `Range` of a download, the request preconditions
// (`ifGenerationMatch`, …) on an object or a bucket, the generation a request names, a compose's
// sources, and the bodies (an object's metadata change, a bucket resource), read with the one
// strict JSON reader (base/json_reader.h) in the storage API's words (`kStorageJsonDialect`).
// Pure and thread-safe (`scripts/check_layers.sh`: no IO, no server).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/json_reader.h"
#include "base/status.h"
#include "store/bucket_store.h"
#include "store/preconditions.h"

namespace trainyard::server {

// The query parameters the storage method `method` ("storage.objects.get") accepts beyond the
// standard ones every Google API takes (router.h: `alt`, `fields`, `prettyPrint`, `quotaUser`,
// …): those it reads, and those GCS documents that change nothing here (`userProject`,
// `projection`, ACLs, KMS keys, `force`, and the listing parameters the Node.js client's
// `deleteFiles` sends with each delete). Others, which would change what a call means
// (`softDeleted`, `filter`, …), stay refused. Empty for a method not in the table.
std::vector<std::string> StorageQueryParams(std::string_view method);

// What a resumable upload's PUT says of its body.
struct ChunkRange {
  std::optional<std::int64_t> first;  // none for a body-less status query or finalisation
  std::int64_t length = 0;            // the body's bytes
  std::optional<std::int64_t> total;  // the object's size, once the client knows it
};

// The chunk a PUT of `body_size` bytes carries, from its `Content-Range` header, in each form
// GCS's resumable protocol and its client libraries use:
//   (absent)        the whole object in this body;
//   "bytes A-B/N"   bytes A..B of an N-byte object ("bytes A-B/*" while N is not known);
//   "bytes A-*/N"   the body is the object from byte A on, N bytes in all (what the Node
//                   client sends for a whole stream in one request; a short body leaves the
//                   session open, as "bytes A-B/N" does);
//   "bytes A-*/*"   the same with N not known beforehand: the body ends the object, which has
//                   A + body_size bytes (as Google's own storage testbench finalises it);
//   "bytes */N"     no body: the object has N bytes (finalises once they were all received);
//   "bytes A-(A-1)/N"  the same, as an empty range: the Node.js client's last chunk in chunked
//                   mode (`chunkSize`) when it is empty, "bytes 0--1/0" for an empty object;
//   "bytes */*"     no body: a status query.
// INVALID_ARGUMENT on "Content-Range" for anything else, and for a range whose length is not
// the body's.
Result<ChunkRange> ParseContentRange(std::string_view header, std::int64_t body_size);

// `text` parsed into `json` when it is a JSON object; else INVALID_ARGUMENT on "body" with
// `message` ("The request body must be a JSON object (a bucket resource)."). For the rules' own
// body parsers, before their reader.
Status ReadJsonObject(std::string_view text, std::string_view message, nlohmann::json& json);

// A strict JSON reader (base/json_reader.h) in the storage API's words (`kStorageJsonDialect`)
// whose problems become `violations`, each on the member it is about (GCS's error `location`), the
// body's root named `resource` ("bucket", "object"; must outlive the reader). For the rules' own
// body parsers.
JsonReader StorageReader(std::vector<FieldViolation>& violations, std::string_view resource);

// GCS's request preconditions and their evaluation live with the store, which applies them with
// each write (store/preconditions.h).
using store::EvaluatePreconditions;
using store::ObjectVersion;
using store::PreconditionOutcome;
using store::Preconditions;

// OK when `live` is the object's generation `generation` names ("" for whichever is live); else
// NOT_FOUND "No such object: bucket/name#generation", as GCS answers: this server keeps one
// generation of each object.
Status CheckLiveGeneration(const store::ObjectInfo& live, std::string_view generation);

// The byte range, first and last byte, inclusive.
using ByteRange = std::pair<std::int64_t, std::int64_t>;

// The range a download's `Range` header asks of an object of `size` bytes (more than 0): nullopt
// for the whole object (no header, or a form not supported here, which HTTP lets a server
// ignore: several ranges, a malformed one, "bytes=-0"); "bytes=A-B" (B clamped to the end),
// "bytes=A-" and "bytes=-N" (the last N bytes). OUT_OF_RANGE when it starts past the end.
Result<std::optional<ByteRange>> RequestedRange(std::string_view header, std::int64_t size);

// The parameter names, "ifGenerationMatch", … ("ifSourceGenerationMatch", … with `infix`
// "Source", which objects.rewrite takes for its source object).
std::vector<std::string> PreconditionParams(std::string_view infix = "");

// The preconditions in `query` (a route's parameters; the last value of a name counts).
// INVALID_ARGUMENT naming the parameter when a value is not a non-negative decimal number.
Result<Preconditions> ParsePreconditions(
    const std::vector<std::pair<std::string, std::string>>& query, std::string_view infix = "");

// The object resource a client sends with a write: multipart's first part, a resumable upload's
// POST body, a compose's `destination`. Read as `ParseObjectPatch` reads a PATCH's, plus its
// `name`, a null being no value: output-only members ignored, each value of the wrong type
// ("Invalid value for metadata.k: a string or null.") and each member this server does not keep
// ("The object field acl is not known to this server.") INVALID_ARGUMENT naming it. Blank text is
// an empty resource.
struct ObjectWrite {
  std::string name;
  std::string content_type;
  std::map<std::string, std::string> metadata;
  store::ObjectHeaders headers;
};
Result<ObjectWrite> ParseObjectWrite(std::string_view text);

// objects.compose's body: the source objects, in order, and the destination's resource.
struct ComposeSource {
  std::string name;
  std::optional<std::int64_t> generation;           // the live one must be this
  std::optional<std::int64_t> if_generation_match;  // objectPreconditions.ifGenerationMatch
};
struct ComposeRequest {
  std::vector<ComposeSource> sources;
  ObjectWrite destination;
};
// At most this many sources, as GCS.
inline constexpr std::size_t kMaxComposeSources = 32;
// Read with the strict reader in the storage API's words: INVALID_ARGUMENT naming the member for a
// body that is not an object, no sources ("Required: sourceObjects."), more than
// kMaxComposeSources, a source without a name ("Required: sourceObjects[2].name."), a generation
// or `objectPreconditions.ifGenerationMatch` that is not a whole number, 0 or more (GCS sends int64
// as strings; numbers are taken too), a member of the request, a source or its preconditions this
// server does not know ("The sourceObjects[0] field x is not known to this server."), and the
// destination's problems as `ParseObjectWrite`'s (`destination.metadata.k`).
Result<ComposeRequest> ParseComposeRequest(std::string_view body);

// OK when the compose source `source` may be read from `live`, the object of that name in
// `bucket`: NOT_FOUND when it names another generation (`CheckLiveGeneration`),
// `store::ConditionNotMet()` (412) when its `objectPreconditions.ifGenerationMatch` is not the
// live generation.
Status CheckComposeSource(const ComposeSource& source, const store::ObjectInfo& live);

// The body of objects.patch, a partial object resource, as the change it asks for:
// `contentType`, `cacheControl`, `contentDisposition`, `contentEncoding`, `contentLanguage`
// (a string, or null to clear) and `metadata` (an object whose values are strings, or null to
// remove that key; null for the whole member removes every key: `store::KeyChanges`). The
// resource's output-only fields (`name`, `generation`, `size`, …) are ignored, as GCS ignores them;
// any other member (`acl`, `temporaryHold`, …) is INVALID_ARGUMENT naming it ("The object field acl
// is not known to this server."): this server does not keep it.
Result<store::ObjectPatch> ParseObjectPatch(std::string_view body);

// A bucket's writable fields (store::BucketInfo): its labels, and the members kept as given.
struct BucketFields {
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> settings;  // member name -> its JSON text

  bool operator==(const BucketFields&) const = default;
};

// How a bucket resource in a request body changes the fields: buckets.patch merges it into them
// (GCS's patch semantics, JSON merge patch: a member sent replaces that member, null removes it,
// objects such as `labels` merge key by key); buckets.update and buckets.insert replace them
// (what the body leaves out is reset to its default: no labels, no cors, no website).
enum class BucketWrite { kPatch, kReplace };

// `current` with the bucket resource `body` applied, each member treated as the table in
// rules.cc says (docs/reference/ai-platform-training.md §11.2): output-only members
// (`name`, `metageneration`, …) are ignored; `location`, `locationType` and `storageClass` must
// hold the one value this server has; `labels` (checked against the label rules), `cors` and
// `website` are kept; members that would need behaviour this server lacks (`versioning`,
// `lifecycle`, `retentionPolicy`, `encryption`, `defaultEventBasedHold`, …) are taken only with
// their "off" value; anything else is refused. INVALID_ARGUMENT naming each bad member.
Result<BucketFields> ApplyBucketResource(const BucketFields& current, std::string_view body,
                                         BucketWrite mode);

// buckets.insert's body: a bucket resource with its `name` (a string; INVALID_ARGUMENT on "name"
// when absent or not one) and the fields it is created with (`ApplyBucketResource` replacing
// none: the Node client's createBucket(name, {labels})).
struct NewBucket {
  std::string name;
  BucketFields fields;
};
Result<NewBucket> ParseBucketInsert(std::string_view body);

// OK when a change of a bucket (a delete, a patch, an update) may go ahead under the request's
// preconditions (a bucket takes `ifMetagenerationMatch` and `ifMetagenerationNotMatch`, on its
// metageneration); else `store::ConditionNotMet()`, GCS's 412. A delete's are the store's, checked
// with the removal (`BucketStore::DeleteBucket`).
using store::CheckBucketConditions;

// What buckets.patch and buckets.update (`mode`) make of `bucket` with `body`: its new fields, to
// be stored by compare-and-swap on `bucket.metageneration` (a change in between: plan again on
// the bucket as it is then). Refused when the preconditions do not hold for it
// (`CheckBucketConditions`, looked at before the body) or the body is bad (`ApplyBucketResource`).
Result<BucketFields> PlanBucketChange(const store::BucketInfo& bucket,
                                      const Preconditions& conditions, std::string_view body,
                                      BucketWrite mode);

}  // namespace trainyard::server
