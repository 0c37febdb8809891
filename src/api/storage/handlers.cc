// The storage v1 handlers the route table (routes.cc) names, and the preconditions
// the upload handlers share (handlers.h).
#include "api/storage/handlers.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/storage/internal.h"
#include "api/storage/json.h"
#include "api/storage/rules.h"
#include "os/unique_fd.h"

namespace trainyard::server {

using store::BucketStore;

namespace {

// Whether the request has any of the preconditions named with `infix`.
bool HasPreconditions(const RoutedRequest& request, std::string_view infix = "") {
  return std::ranges::any_of(PreconditionParams(infix), [&](const std::string& name) {
    return request.Query(name) != nullptr;
  });
}

// A non-negative decimal query parameter; `fallback` when absent.
Result<int> IntParam(const RoutedRequest& request, std::string_view name, int fallback) {
  const std::string* text = request.Query(name);
  if (text == nullptr || text->empty()) {
    return fallback;
  }
  int value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < 0) {
    return Status::InvalidArgument(
        {{std::string(name), fmt::format("Invalid value '{}': expected a number.", *text)}});
  }
  return value;
}

std::string QueryOr(const RoutedRequest& request, std::string_view name) {
  const std::string* value = request.Query(name);
  return value == nullptr ? std::string() : *value;
}

// The answer when the request's metageneration preconditions do not hold for `bucket` (buckets
// take only those two): 304 or 412; nullopt when they hold.
std::optional<HttpResponse> BucketConditionsAnswer(const RoutedRequest& request,
                                                   const store::BucketInfo& bucket) {
  return VersionAnswer(request, ObjectVersion{.metageneration = bucket.metageneration},
                       /*is_read=*/true);
}

// buckets.patch (`mode` kPatch) and buckets.update (kReplace): the change `PlanBucketChange` makes
// of the bucket, stored only if the bucket is still the one it was planned on (a change in
// between plans it again on the new state).
HttpResponse ChangeBucket(BucketStore& buckets, const RoutedRequest& request, BucketWrite mode) {
  constexpr int kAttempts = 3;
  const std::string& name = request.Param("bucket");
  const Result<Preconditions> conditions = WriteConditions(request);
  if (!conditions.ok()) {
    return StorageErrorResponse(conditions.status());
  }
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto bucket = buckets.GetBucket(name);
    if (!bucket.ok()) {
      return StorageErrorResponse(bucket.status());
    }
    Result<BucketFields> fields = PlanBucketChange(*bucket, *conditions, request.http.body, mode);
    if (!fields.ok()) {
      return StorageErrorResponse(fields.status());
    }
    auto updated =
        buckets.UpdateBucket(name, fields->labels, fields->settings, bucket->metageneration);
    if (updated.ok()) {
      return JsonResponse(BucketJson(*updated, BaseUrl(request.http)));
    }
    if (updated.status().code() != Code::kAborted) {
      return StorageErrorResponse(updated.status());
    }
  }
  return StorageErrorResponse(
      Status::Unavailable(fmt::format("The bucket {} is being changed; try again.", name)));
}

// The object, NOT_FOUND unless it is the `generation` asked for (objects keep one generation).
Result<store::ObjectInfo> FindObject(BucketStore& buckets, const RoutedRequest& request) {
  const std::string& bucket = request.Param("bucket");
  const std::string& name = request.Param("object");
  auto info = buckets.GetObject(bucket, name);
  if (info.ok()) {
    TY_RETURN_IF_ERROR(CheckLiveGeneration(*info, QueryOr(request, "generation")));
  }
  return info;
}

HttpResponse Download(BucketStore& buckets, const RoutedRequest& request,
                      const store::ObjectInfo& found) {
  const std::string& bucket = request.Param("bucket");
  const std::string& name = request.Param("object");
  const store::ObjectInfo* info = &found;
  auto file = buckets.OpenObject(bucket, name);
  if (!file.ok()) {
    return StorageErrorResponse(file.status());
  }
  auto range = info->size == 0 ? Result<std::optional<ByteRange>>(std::nullopt)
                               : RequestedRange(request.http.Header("range"), info->size);
  if (!range.ok()) {
    HttpResponse response = StorageErrorResponse(range.status());
    response.headers.emplace_back("Content-Range", fmt::format("bytes */{}", info->size));
    return response;
  }
  const auto [first, last] = range->value_or(ByteRange{0, info->size - 1});
  HttpResponse response{.status = range->has_value() ? 206 : 200,
                        .content_type = info->content_type};
  response.body_file = FileSlice{.file = std::make_shared<os::UniqueFd>(*std::move(file)),
                                 .name = fmt::format("{}/{}", bucket, name),
                                 .offset = static_cast<std::uint64_t>(first),
                                 .length = static_cast<std::uint64_t>(last - first + 1)};
  response.headers = {
      {"x-goog-hash", fmt::format("crc32c={},md5={}", info->crc32c_base64, info->md5_base64)},
      {"x-goog-generation", std::to_string(info->generation)},
      {"x-goog-metageneration", std::to_string(info->metageneration)},
      {"x-goog-stored-content-length", std::to_string(info->size)},
      {"x-goog-stored-content-encoding",
       info->headers.content_encoding.empty() ? "identity" : info->headers.content_encoding},
      {"Accept-Ranges", "bytes"}};
  // The stored bytes as they are, with the fields that describe them (a gzip-encoded object is
  // served compressed, with Content-Encoding: gzip, whatever the client accepts).
  for (const store::ObjectHeaderField& field : store::kObjectHeaderFields) {
    if (!(info->headers.*field.field).empty()) {
      response.headers.emplace_back(field.http_name, info->headers.*field.field);
    }
  }
  if (range->has_value()) {
    response.headers.emplace_back("Content-Range",
                                  fmt::format("bytes {}-{}/{}", first, last, info->size));
  }
  return response;
}

// The answer refusing a change of the object (a delete, a patch) when its `generation` is not the
// live one (this server keeps no older generations) or its preconditions are malformed; nullopt
// when the change may go ahead, with the preconditions in `conditions` for the store to evaluate
// with the change.
std::optional<HttpResponse> ChangeRefused(BucketStore& buckets, const RoutedRequest& request,
                                          Preconditions& conditions) {
  Result<Preconditions> parsed = WriteConditions(request);
  if (!parsed.ok()) {
    return StorageErrorResponse(parsed.status());
  }
  conditions = *parsed;
  if (request.Query("generation") == nullptr) {
    return std::nullopt;
  }
  auto info = FindObject(buckets, request);
  if (!info.ok()) {
    return StorageErrorResponse(info.status());
  }
  return std::nullopt;
}

}  // namespace

namespace storage_v1_internal {

HttpResponse InsertBucket(BucketStore& buckets, const RoutedRequest& request) {
  const std::string project = QueryOr(request, "project");
  if (project.empty()) {
    return StorageErrorResponse(
        Status::InvalidArgument({{"project", "Required parameter: project"}}));
  }
  // Its fields are checked before anything is made, as buckets.update checks them.
  Result<NewBucket> parsed = ParseBucketInsert(request.http.body);
  if (!parsed.ok()) {
    return StorageErrorResponse(parsed.status());
  }
  auto bucket = buckets.CreateBucket(project, parsed->name);
  if (bucket.ok() && parsed->fields != BucketFields{}) {
    bucket = buckets.UpdateBucket(bucket->name, parsed->fields.labels, parsed->fields.settings,
                                  bucket->metageneration);
  }
  if (!bucket.ok()) {
    return StorageErrorResponse(bucket.status());
  }
  return JsonResponse(BucketJson(*bucket, BaseUrl(request.http)));
}

HttpResponse GetBucket(const BucketStore& buckets, const RoutedRequest& request) {
  auto bucket = buckets.GetBucket(request.Param("bucket"));
  if (!bucket.ok()) {
    return StorageErrorResponse(bucket.status());
  }
  if (auto answer = BucketConditionsAnswer(request, *bucket)) {
    return *std::move(answer);
  }
  return JsonResponse(BucketJson(*bucket, BaseUrl(request.http)));
}

HttpResponse PatchBucket(BucketStore& buckets, const RoutedRequest& request) {
  return ChangeBucket(buckets, request, BucketWrite::kPatch);
}

HttpResponse UpdateBucket(BucketStore& buckets, const RoutedRequest& request) {
  return ChangeBucket(buckets, request, BucketWrite::kReplace);
}

HttpResponse ListBuckets(const BucketStore& buckets, const RoutedRequest& request) {
  const std::string project = QueryOr(request, "project");
  if (project.empty()) {
    return StorageErrorResponse(
        Status::InvalidArgument({{"project", "Required parameter: project"}}));
  }
  auto list = buckets.ListBuckets(project);
  if (!list.ok()) {
    return StorageErrorResponse(list.status());
  }
  return JsonResponse(BucketListJson(*list, BaseUrl(request.http)));
}

HttpResponse DeleteBucket(BucketStore& buckets, const RoutedRequest& request) {
  const Result<Preconditions> conditions = WriteConditions(request);
  if (!conditions.ok()) {
    return StorageErrorResponse(conditions.status());
  }
  const Status status = buckets.DeleteBucket(request.Param("bucket"), *conditions);
  if (!status.ok()) {
    return StorageErrorResponse(status);
  }
  return HttpResponse{.status = 204};
}

// gcloud asks before removing "folders" (`storage rm -r`): a flat namespace, as most buckets.
HttpResponse GetStorageLayout(const BucketStore& buckets, const RoutedRequest& request) {
  auto bucket = buckets.GetBucket(request.Param("bucket"));
  if (!bucket.ok()) {
    return StorageErrorResponse(bucket.status());
  }
  const nlohmann::json layout = {{"kind", "storage#storageLayout"},
                                 {"bucket", bucket->name},
                                 {"location", "US"},
                                 {"locationType", "multi-region"},
                                 {"hierarchicalNamespace", {{"enabled", false}}}};
  return JsonResponse(layout.dump());
}

// gcloud lists them when removing a whole bucket (`storage rm -r gs://b`): there are none.
HttpResponse ListManagedFolders(const BucketStore& buckets, const RoutedRequest& request) {
  auto bucket = buckets.GetBucket(request.Param("bucket"));
  if (!bucket.ok()) {
    return StorageErrorResponse(bucket.status());
  }
  return JsonResponse(R"({"kind":"storage#managedFolders"})");
}

// A copy (gcloud's `storage cp gs://… gs://…` and `mv`), done in one call; the source's
// ("ifSource…") and the destination's preconditions are evaluated by the store with the copy.
HttpResponse RewriteObject(BucketStore& buckets, const RoutedRequest& request) {
  Result<Preconditions> source_conditions = WriteConditions(request, "Source");
  Result<Preconditions> conditions = WriteConditions(request);
  if (!source_conditions.ok() || !conditions.ok()) {
    return StorageErrorResponse(source_conditions.ok() ? conditions.status()
                                                       : source_conditions.status());
  }
  auto object =
      buckets.CopyObject(request.Param("sourceBucket"), request.Param("sourceObject"),
                         request.Param("destinationBucket"), request.Param("destinationObject"),
                         *source_conditions, *conditions);
  if (!object.ok()) {
    return StorageErrorResponse(object.status());
  }
  const std::string size = std::to_string(object->size);
  const std::string resource = ObjectJson(*object, BaseUrl(request.http));
  return JsonResponse(fmt::format(
      R"({{"kind":"storage#rewriteResponse","totalBytesRewritten":"{}","objectSize":"{}",)"
      R"("done":true,"resource":{}}})",
      size, size, resource));
}

HttpResponse ListObjects(BucketStore& buckets, const RoutedRequest& request) {
  Result<int> max_results = IntParam(request, "maxResults", 1000);
  if (!max_results.ok()) {
    return StorageErrorResponse(max_results.status());
  }
  auto listing = buckets.ListObjects(request.Param("bucket"),
                                     {.prefix = QueryOr(request, "prefix"),
                                      .delimiter = QueryOr(request, "delimiter"),
                                      .max_results = *max_results == 0 ? 1000 : *max_results,
                                      .page_token = QueryOr(request, "pageToken"),
                                      .start_offset = QueryOr(request, "startOffset"),
                                      .end_offset = QueryOr(request, "endOffset"),
                                      .match_glob = QueryOr(request, "matchGlob")});
  if (!listing.ok()) {
    return StorageErrorResponse(listing.status());
  }
  return JsonResponse(ObjectListJson(*listing, BaseUrl(request.http)));
}

HttpResponse GetObject(BucketStore& buckets, const RoutedRequest& request) {
  auto info = FindObject(buckets, request);
  if (!info.ok()) {
    return StorageErrorResponse(info.status());
  }
  if (auto answer = PreconditionAnswer(request, *info, /*is_read=*/true)) {
    return *std::move(answer);
  }
  const std::string* alt = request.Query("alt");
  if (alt != nullptr && *alt == "media") {
    return Download(buckets, request, *info);
  }
  return JsonResponse(ObjectJson(*info, BaseUrl(request.http)));
}

HttpResponse DeleteObject(BucketStore& buckets, const RoutedRequest& request) {
  Preconditions conditions;
  if (auto answer = ChangeRefused(buckets, request, conditions)) {
    return *std::move(answer);
  }
  const Status status =
      buckets.DeleteObject(request.Param("bucket"), request.Param("object"), conditions);
  if (!status.ok()) {
    return StorageErrorResponse(status);
  }
  return HttpResponse{.status = 204};
}

// objects.patch: the body's metadata change, unless `ChangeRefused`.
HttpResponse PatchObject(BucketStore& buckets, const RoutedRequest& request) {
  Result<store::ObjectPatch> patch = ParseObjectPatch(request.http.body);
  if (!patch.ok()) {
    return StorageErrorResponse(patch.status());
  }
  Preconditions conditions;
  if (auto answer = ChangeRefused(buckets, request, conditions)) {
    return *std::move(answer);
  }
  auto info =
      buckets.PatchObject(request.Param("bucket"), request.Param("object"), *patch, conditions);
  if (!info.ok()) {
    return StorageErrorResponse(info.status());
  }
  return JsonResponse(ObjectJson(*info, BaseUrl(request.http)));
}

}  // namespace storage_v1_internal

std::optional<HttpResponse> VersionAnswer(const RoutedRequest& request,
                                          const std::optional<ObjectVersion>& version, bool is_read,
                                          std::string_view infix) {
  Result<Preconditions> conditions = ParsePreconditions(request.query, infix);
  if (!conditions.ok()) {
    return StorageErrorResponse(conditions.status());
  }
  switch (EvaluatePreconditions(*conditions, version, is_read)) {
    case PreconditionOutcome::kHolds:
      return std::nullopt;
    case PreconditionOutcome::kNotModified:
      return HttpResponse{.status = 304};
    case PreconditionOutcome::kFailed:
      break;
  }
  return PreconditionFailedResponse();
}

std::optional<HttpResponse> PreconditionAnswer(const RoutedRequest& request,
                                               const std::optional<store::ObjectInfo>& current,
                                               bool is_read, std::string_view infix) {
  std::optional<ObjectVersion> version;
  if (current.has_value()) {
    version =
        ObjectVersion{.generation = current->generation, .metageneration = current->metageneration};
  }
  return VersionAnswer(request, version, is_read, infix);
}

Result<Preconditions> WriteConditions(const RoutedRequest& request, std::string_view infix) {
  return ParsePreconditions(request.query, infix);
}

std::optional<HttpResponse> CheckWritePreconditions(BucketStore& buckets,
                                                    const RoutedRequest& request,
                                                    std::string_view bucket,
                                                    std::string_view name) {
  if (!HasPreconditions(request)) {
    return std::nullopt;
  }
  auto info = buckets.GetObject(bucket, name);
  if (!info.ok() && info.status().code() != Code::kNotFound) {
    return StorageErrorResponse(info.status());
  }
  // A missing bucket is NOT_FOUND too: the write itself reports it.
  return PreconditionAnswer(request,
                            info.ok() ? std::optional<store::ObjectInfo>(*info) : std::nullopt,
                            /*is_read=*/false);
}

}  // namespace trainyard::server
