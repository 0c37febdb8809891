// The storage v1 route table: one row per route (`AddStorageV1Routes`), each served under the
// JSON API's root and at the host's, over the handlers of handlers.cc
// (internal.h) and the upload routes of uploads.cc.
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "api/storage/handlers.h"
#include "api/storage/internal.h"
#include "api/storage/rules.h"

namespace trainyard::server {
namespace {

using storage_v1_internal::DeleteBucket;
using storage_v1_internal::DeleteObject;
using storage_v1_internal::GetBucket;
using storage_v1_internal::GetObject;
using storage_v1_internal::GetStorageLayout;
using storage_v1_internal::InsertBucket;
using storage_v1_internal::ListBuckets;
using storage_v1_internal::ListManagedFolders;
using storage_v1_internal::ListObjects;
using storage_v1_internal::PatchBucket;
using storage_v1_internal::PatchObject;
using storage_v1_internal::RewriteObject;
using storage_v1_internal::UpdateBucket;
using store::BucketStore;

// The JSON API's paths below its root, which is /storage/v1 as Google serves it and also the
// host's root: the Node.js client given STORAGE_EMULATOR_HOST=http://HOST:PORT (which trainyard
// gives every replica) calls http://HOST:PORT/b/… (kApiRoots).
constexpr std::string_view kBuckets = "/b";
constexpr std::string_view kBucket = "/b/{bucket}";
constexpr std::string_view kObjects = "/b/{bucket}/o";
constexpr std::string_view kObject = "/b/{bucket}/o/{object=**}";
constexpr std::string_view kLayout = "/b/{bucket}/storageLayout";
constexpr std::string_view kManagedFolders = "/b/{bucket}/managedFolders";
constexpr std::array<std::string_view, 2> kApiRoots = {"/storage/v1", ""};
constexpr std::string_view kDownload = "/download/storage/v1/b/{bucket}/o/{object=**}";
constexpr std::string_view kCompose = "/b/{bucket}/o/{object}/compose";
constexpr std::string_view kRewrite =
    "/b/{sourceBucket}/o/{sourceObject}/rewriteTo/b/{destinationBucket}/o/{destinationObject}";

// A handler as a plain function of the store, whichever constness it takes the store with.
template <auto kHandler>
HttpResponse Call(BucketStore& buckets, const RoutedRequest& request) {
  return kHandler(buckets, request);
}

}  // namespace

std::vector<std::string> StorageUploadPrefixes() {
  return {"/upload/", "/resumable/upload/"};
}

Route StorageRoute(Route route) {
  route.query_params = StorageQueryParams(route.name);
  return route;
}

void AddStorageV1Routes(Router& router, store::BucketStore& buckets) {
  BucketStore* b = &buckets;
  using Handler = HttpResponse (*)(BucketStore&, const RoutedRequest&);
  struct Row {
    std::string_view method;
    std::string_view path;  // below the API's root
    std::string_view name;
    Handler handler;
    RouteAccess access;
    RouteAudit audit;
    RouteAccess also = {};  // a second rule, when the route reads one bucket and writes another
  };
  const std::array<Row, 14> rows = {{
      {"POST", kBuckets, "storage.buckets.insert", &Call<&InsertBucket>,
       InQueryProject("storage.buckets.create"),
       StorageChanges("storage.buckets.create", AuditResource::kBucket)},
      {"GET", kBuckets, "storage.buckets.list", &Call<&ListBuckets>,
       InQueryProject("storage.buckets.list"),
       StorageReads("storage.buckets.list", AuditResource::kProject)},
      {"GET", kBucket, "storage.buckets.get", &Call<&GetBucket>, InBucket("storage.buckets.get"),
       StorageReads("storage.buckets.get", AuditResource::kBucket)},
      {"DELETE", kBucket, "storage.buckets.delete", &Call<&DeleteBucket>,
       InBucket("storage.buckets.delete"),
       StorageChanges("storage.buckets.delete", AuditResource::kBucket)},
      {"PATCH", kBucket, "storage.buckets.patch", &Call<&PatchBucket>,
       InBucket("storage.buckets.update"),
       StorageChanges("storage.buckets.update", AuditResource::kBucket)},
      {"PUT", kBucket, "storage.buckets.update", &Call<&UpdateBucket>,
       InBucket("storage.buckets.update"),
       StorageChanges("storage.buckets.update", AuditResource::kBucket)},
      {"GET", kObjects, "storage.objects.list", &Call<&ListObjects>,
       InBucket("storage.objects.list"),
       StorageReads("storage.objects.list", AuditResource::kBucket)},
      {"GET", kObject, "storage.objects.get", &Call<&GetObject>, InBucket("storage.objects.get"),
       StorageReads("storage.objects.get", AuditResource::kObject)},
      {"DELETE", kObject, "storage.objects.delete", &Call<&DeleteObject>,
       InBucket("storage.objects.delete"),
       StorageChanges("storage.objects.delete", AuditResource::kObject)},
      {"PATCH", kObject, "storage.objects.patch", &Call<&PatchObject>,
       InBucket("storage.objects.update"),
       StorageChanges("storage.objects.update", AuditResource::kObject)},
      {"GET", kLayout, "storage.buckets.getStorageLayout", &Call<&GetStorageLayout>,
       InBucket("storage.buckets.get"),
       StorageReads("storage.buckets.getStorageLayout", AuditResource::kBucket)},
      {"GET", kManagedFolders, "storage.managedFolders.list", &Call<&ListManagedFolders>,
       InBucket("storage.objects.list"),
       StorageReads("storage.managedFolders.list", AuditResource::kBucket)},
      {"POST", kRewrite, "storage.objects.rewrite", &Call<&RewriteObject>,
       InBucket("storage.objects.get", "sourceBucket"),
       StorageChanges("storage.objects.rewrite", AuditResource::kRewriteTarget),
       InBucket("storage.objects.create", "destinationBucket")},
      {"POST", kCompose, "storage.objects.compose", &Call<&ComposeObject>,
       InBucket("storage.objects.get"),
       StorageChanges("storage.objects.compose", AuditResource::kObject),
       InBucket("storage.objects.create")},
  }};
  for (const std::string_view root : kApiRoots) {
    for (const Row& row : rows) {
      std::vector<RouteAccess> access = {row.access};
      if (!row.also.permission.empty()) {
        access.push_back(row.also);
      }
      router.Add(StorageRoute(
          {.method = std::string(row.method),
           .pattern = fmt::format("{}{}", root, row.path),
           .name = std::string(row.name),
           .handler = [b, handler = row.handler](const RoutedRequest& r) { return handler(*b, r); },
           .slashes_in_variables = row.path == kRewrite || row.path == kCompose,
           .access = std::move(access),
           .audit = row.audit}));
    }
  }
  router.Add(StorageRoute({.method = "GET",
                           .pattern = std::string(kDownload),
                           .name = "storage.objects.get",
                           .handler = [b](const RoutedRequest& r) { return GetObject(*b, r); },
                           .access = {InBucket("storage.objects.get")},
                           .audit = StorageReads("storage.objects.get", AuditResource::kObject)}));
  AddStorageUploadRoutes(router, buckets);
}

}  // namespace trainyard::server
