// Internal to api/storage/*: the handlers of handlers.cc, which the route table
// in routes.cc names. Each maps one storage v1 method's request to a store call and
// the answer or error back, as GCS shapes them (json.h).
#pragma once

#include "server/http_message.h"
#include "server/router.h"
#include "store/bucket_store.h"

namespace trainyard::server::storage_v1_internal {

// buckets: insert (with the fields it is created with), get, patch (the body merged into the
// bucket's fields), update (the body replaces them), list, delete; getStorageLayout and
// managedFolders.list, the two answers `gcloud storage rm -r` needs.
HttpResponse InsertBucket(store::BucketStore& buckets, const RoutedRequest& request);
HttpResponse GetBucket(const store::BucketStore& buckets, const RoutedRequest& request);
HttpResponse PatchBucket(store::BucketStore& buckets, const RoutedRequest& request);
HttpResponse UpdateBucket(store::BucketStore& buckets, const RoutedRequest& request);
HttpResponse ListBuckets(const store::BucketStore& buckets, const RoutedRequest& request);
HttpResponse DeleteBucket(store::BucketStore& buckets, const RoutedRequest& request);
HttpResponse GetStorageLayout(const store::BucketStore& buckets, const RoutedRequest& request);
HttpResponse ListManagedFolders(const store::BucketStore& buckets, const RoutedRequest& request);

// objects: rewrite (a copy), list, get (metadata, or the bytes with `alt=media`, also under
// /download/), delete, patch (metadata). compose is uploads.cc's (`ComposeObject`).
HttpResponse RewriteObject(store::BucketStore& buckets, const RoutedRequest& request);
HttpResponse ListObjects(store::BucketStore& buckets, const RoutedRequest& request);
HttpResponse GetObject(store::BucketStore& buckets, const RoutedRequest& request);
HttpResponse DeleteObject(store::BucketStore& buckets, const RoutedRequest& request);
HttpResponse PatchObject(store::BucketStore& buckets, const RoutedRequest& request);

}  // namespace trainyard::server::storage_v1_internal
