// The storage v1 JSON API (what gcloud and the GCS client libraries call), as routes over a
// `store::BucketStore` (docs/reference/ai-platform-training.md §11): buckets
// insert/get/list/delete; objects get (metadata, or the bytes with `alt=media`, also under
// /download/), list (prefix, delimiter, pages), delete and rewrite (a copy, for `gcloud storage cp
// gs://… gs://…` and `mv`); uploads with uploadType=media, multipart and resumable (under /upload/
// and /resumable/upload/); and the two answers `gcloud storage rm -r` needs (a flat storage layout,
// no managed folders). Each handler maps HTTP to a store call and the answer or error back, as GCS
// shapes them (storage_v1_json.h); the rules are the store's.
//
// Upload bodies are expected spooled to files (`StorageUploadPrefixes`), so the object size is
// bounded by the server's spool limit, not by memory. Downloads stream from the object's file
// and honour a single `Range: bytes=…`.
#pragma once

#include <string>
#include <vector>

#include "server/router.h"
#include "store/bucket_store.h"

namespace trainyard::server {

// Adds every storage route to `router`. `buckets` must outlive it.
void AddStorageV1Routes(Router& router, store::BucketStore& buckets);

// The path prefixes whose request bodies should be spooled to `buckets.scratch_dir()`.
std::vector<std::string> StorageUploadPrefixes();

// The upload routes alone (storage_v1_uploads.cc); `AddStorageV1Routes` adds them.
void AddStorageUploadRoutes(Router& router, store::BucketStore& buckets);

}  // namespace trainyard::server
