// The storage v1 JSON API (what gcloud and the GCS client libraries call), as routes over a
// `store::BucketStore` (docs/reference/ai-platform-training.md §11): buckets
// insert/get/list/delete/patch/update (the fields rules.h's ApplyBucketResource
// keeps); objects get (metadata, or the bytes with `alt=media`, also
// under /download/), list (prefix, delimiter, pages), patch (metadata), compose, delete and rewrite
// (a copy, for `gcloud storage cp gs://… gs://…` and `mv`); uploads with uploadType=media,
// multipart and resumable (under /upload/ and /resumable/upload/); and the two answers `gcloud
// storage rm -r` needs (a flat storage layout, no managed folders). Each handler decodes the
// request, calls the rules (rules.h: pure) and the store, and encodes the answer or error as GCS
// shapes them (json.h); a write's preconditions are evaluated by the store, with the write.
//
// Upload bodies are expected spooled to files (`StorageUploadPrefixes`), so the object size is
// bounded by the server's spool limit, not by memory. Downloads stream from the object's file
// and honour a single `Range: bytes=…`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/storage/rules.h"
#include "server/router.h"
#include "store/bucket_store.h"

namespace trainyard::server {

// Adds every storage route to `router`. `buckets` must outlive it.
void AddStorageV1Routes(Router& router, store::BucketStore& buckets);

// The path prefixes whose request bodies should be spooled to `buckets.scratch_dir()`.
std::vector<std::string> StorageUploadPrefixes();

// The answer when the request's preconditions (rules.h; `infix` as below) do not hold
// for `version` (nullopt: no live object): 400 for a bad value, 412, or 304 for a read; nullopt
// when they hold.
std::optional<HttpResponse> VersionAnswer(const RoutedRequest& request,
                                          const std::optional<ObjectVersion>& version, bool is_read,
                                          std::string_view infix = "");

// The answer when the request's preconditions (rules.h; `infix` "Source" for a
// rewrite's source) do not hold for `current` (nullopt: no live object): 400 for a bad value,
// 412, or 304 for a read; nullopt when they hold.
std::optional<HttpResponse> PreconditionAnswer(const RoutedRequest& request,
                                               const std::optional<store::ObjectInfo>& current,
                                               bool is_read, std::string_view infix = "");

// The request's preconditions on the object it writes (`infix` as above), for the store to
// evaluate with the write (store/preconditions.h); INVALID_ARGUMENT naming a malformed one.
Result<Preconditions> WriteConditions(const RoutedRequest& request, std::string_view infix = "");

// The same as `PreconditionAnswer` for a write of `bucket`/`name` about to begin (a resumable
// upload's start, refused early as GCS refuses it), reading the object only when the request has
// preconditions. Not the write's own check: the store evaluates them again with the write.
std::optional<HttpResponse> CheckWritePreconditions(store::BucketStore& buckets,
                                                    const RoutedRequest& request,
                                                    std::string_view bucket, std::string_view name);

// `route` ("storage.objects.get") with the query parameters its method accepts
// (`StorageQueryParams`).
Route StorageRoute(Route route);

// A storage route's access rule: `permission` in the project that owns the bucket the path
// variable `variable` names, or in the `project` query parameter's.
inline RouteAccess InBucket(std::string permission, std::string variable = "bucket") {
  return {.permission = std::move(permission),
          .from = ProjectFrom::kBucket,
          .variable = std::move(variable)};
}

inline RouteAccess InQueryProject(std::string permission) {
  return {.permission = std::move(permission), .from = ProjectFrom::kQueryProject};
}

// What the audit log calls a storage call (`method`, Google's name) that reads or changes
// `resource`.
inline RouteAudit StorageReads(std::string method, AuditResource resource) {
  return {.service = kStorageService, .method = std::move(method), .resource = resource};
}
inline RouteAudit StorageChanges(std::string method, AuditResource resource) {
  return {.service = kStorageService,
          .method = std::move(method),
          .mutating = true,
          .resource = resource};
}

// objects.compose (uploads.cc): the sources' bytes, in order, written as the
// destination, after the destination's preconditions and each source's generation checks.
HttpResponse ComposeObject(store::BucketStore& buckets, const RoutedRequest& request);

// The upload routes alone (uploads.cc); `AddStorageV1Routes` adds them.
void AddStorageUploadRoutes(Router& router, store::BucketStore& buckets);

}  // namespace trainyard::server
