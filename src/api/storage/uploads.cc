// The upload routes of the storage v1 API (`AddStorageUploadRoutes`, handlers.h):
// uploadType=media and multipart in one request, and resumable sessions (a POST that answers the
// session URL in `Location`, then PUTs of `Content-Range` chunks answered 308 until complete).
#include <atomic>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/storage/handlers.h"
#include "api/storage/json.h"
#include "api/storage/rules.h"
#include "base/disk_full.h"
#include "os/file.h"
#include "os/process.h"
#include "server/multipart.h"

namespace trainyard::server {
namespace {

using store::BucketStore;

constexpr std::string_view kUpload = "/upload/storage/v1/b/{bucket}/o";
constexpr std::string_view kResumableUpload = "/resumable/upload/storage/v1/b/{bucket}/o";
// Metadata bodies (JSON) are small; an upload's bytes never go through this.
constexpr std::size_t kMaxMetadataBytes = std::size_t{1} << 20;

std::atomic<std::uint64_t> temp_counter{0};

Status BadParam(std::string field, std::string description) {
  return Status::InvalidArgument({{std::move(field), std::move(description)}});
}

// The request body as text: small bodies only (the metadata of a resumable upload).
Result<std::string> SmallBody(const HttpRequest& request) {
  if (request.body_file.empty()) {
    return request.body;
  }
  std::ifstream in(request.body_file, std::ios::binary);
  std::string text(kMaxMetadataBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxMetadataBytes) {
    return BadParam("body", "The object metadata exceeds 1 MiB.");
  }
  return text;
}

std::string TempPath(const BucketStore& buckets, std::string_view tag) {
  return fmt::format("{}/{}-{}-{}", buckets.scratch_dir(), tag, os::CurrentPid(),
                     temp_counter.fetch_add(1));
}

// A new scratch file at `path`, created for writing: never a file or a link that was there (a job
// can create entries in the buckets' tree, where the scratch directory is).
Result<os::UniqueFd> CreateScratch(const std::string& path) {
  return os::CreateNewFile(path, 0644);
}

// `bytes` written to `fd` (the scratch file `path`), the disk being full said so.
Status WriteScratch(int fd, std::string_view bytes, const std::string& path) {
  const int error = os::WriteFully(fd, bytes);
  if (error == 0) {
    return {};
  }
  const char* reason = std::strerror(error);  // NOLINT(concurrency-mt-unsafe): errno text only
  return IsDiskFull(error) ? DiskFullError("write " + path, reason)
                           : Status::Unavailable(fmt::format("cannot write {}: {}", path, reason));
}

// The name from the query, else from the metadata; INVALID_ARGUMENT when neither has one.
Result<std::string> ObjectName(const RoutedRequest& request, const ObjectWrite& metadata) {
  const std::string* name = request.Query("name");
  if (name != nullptr && !name->empty()) {
    return *name;
  }
  if (!metadata.name.empty()) {
    return metadata.name;
  }
  return BadParam("name", "Required parameter: name (in the query or the object metadata).");
}

// The object's headers from the metadata, with the `contentEncoding` parameter over them (the
// one way a media upload can set one).
store::ObjectHeaders Headers(const RoutedRequest& request, const ObjectWrite& metadata) {
  store::ObjectHeaders headers = metadata.headers;
  const std::string* encoding = request.Query("contentEncoding");
  if (encoding != nullptr && !encoding->empty()) {
    headers.content_encoding = *encoding;
  }
  return headers;
}

HttpResponse ObjectAnswer(const Result<store::ObjectInfo>& object, const RoutedRequest& request) {
  if (!object.ok()) {
    return StorageErrorResponse(object.status());
  }
  return JsonResponse(ObjectJson(*object, BaseUrl(request.http)));
}

HttpResponse MediaUpload(BucketStore& buckets, const RoutedRequest& request) {
  const Result<std::string> name = ObjectName(request, {});
  if (!name.ok()) {
    return StorageErrorResponse(name.status());
  }
  const Result<Preconditions> conditions = WriteConditions(request);
  if (!conditions.ok()) {
    return StorageErrorResponse(conditions.status());
  }
  const std::string& bucket = request.Param("bucket");
  const std::string& type = request.http.content_type;
  const store::ObjectHeaders headers = Headers(request, {});
  if (request.http.body_file.empty()) {
    return ObjectAnswer(
        buckets.PutObject(bucket, *name, request.http.body, type, {}, headers, *conditions),
        request);
  }
  return ObjectAnswer(buckets.PutObjectFromFile(bucket, *name, request.http.body_file, type, {},
                                                headers, *conditions),
                      request);
}

HttpResponse MultipartUpload(BucketStore& buckets, const RoutedRequest& request) {
  const HttpRequest& http = request.http;
  const bool spooled = !http.body_file.empty();
  Result<MultipartRelated> parts =
      spooled ? ParseMultipartFile(http.content_type, http.body_file)
              : ParseMultipartRelated(http.content_type, http.body, http.body, http.body.size());
  if (!parts.ok()) {
    return StorageErrorResponse(parts.status());
  }
  Result<ObjectWrite> metadata = ParseObjectWrite(parts->metadata);
  if (!metadata.ok()) {
    return StorageErrorResponse(metadata.status());
  }
  const Result<std::string> name = ObjectName(request, *metadata);
  if (!name.ok()) {
    return StorageErrorResponse(name.status());
  }
  const Result<Preconditions> conditions = WriteConditions(request);
  if (!conditions.ok()) {
    return StorageErrorResponse(conditions.status());
  }
  const std::string& bucket = request.Param("bucket");
  const std::string type =
      metadata->content_type.empty() ? parts->media_content_type : metadata->content_type;
  const store::ObjectHeaders headers = Headers(request, *metadata);
  if (!spooled) {
    const std::string_view media =
        std::string_view(http.body).substr(parts->media_offset, parts->media_length);
    return ObjectAnswer(
        buckets.PutObject(bucket, *name, media, type, metadata->metadata, headers, *conditions),
        request);
  }
  // Refuse bad names and buckets before copying anything.
  if (auto exists = buckets.GetBucket(bucket); !exists.ok()) {
    return StorageErrorResponse(exists.status());
  }
  const std::string temp = TempPath(buckets, "media");
  const Status copied =
      CopyFileRange(http.body_file, parts->media_offset, parts->media_length, temp);
  Result<store::ObjectInfo> object =
      copied.ok() ? buckets.PutObjectFromFile(bucket, *name, temp, type, metadata->metadata,
                                              headers, *conditions)
                  : Result<store::ObjectInfo>(copied);
  (void)os::RemoveFile(temp);  // moved into place on success
  return ObjectAnswer(object, request);
}

HttpResponse StartResumable(BucketStore& buckets, const RoutedRequest& request) {
  Result<std::string> body = SmallBody(request.http);
  Result<ObjectWrite> metadata =
      body.ok() ? ParseObjectWrite(*body) : Result<ObjectWrite>(body.status());
  if (!metadata.ok()) {
    return StorageErrorResponse(metadata.status());
  }
  const Result<std::string> name = ObjectName(request, *metadata);
  if (!name.ok()) {
    return StorageErrorResponse(name.status());
  }
  const std::string_view header_type = request.http.Header("x-upload-content-type");
  const std::string type = header_type.empty() ? metadata->content_type : std::string(header_type);
  const std::string& bucket = request.Param("bucket");
  if (auto refused = CheckWritePreconditions(buckets, request, bucket, *name)) {
    return *std::move(refused);  // malformed, or failing already
  }
  // Evaluated again when the last byte arrives, with the write.
  const Result<Preconditions> conditions = WriteConditions(request);
  auto id = conditions.ok() ? buckets.StartUpload(bucket, *name, type, metadata->metadata,
                                                  Headers(request, *metadata), *conditions)
                            : Result<std::string>(conditions.status());
  if (!id.ok()) {
    return StorageErrorResponse(id.status());
  }
  HttpResponse response{.status = 200};
  response.headers = {
      {"Location", fmt::format("{}/upload/storage/v1/b/{}/o?uploadType=resumable&upload_id={}",
                               BaseUrl(request.http), PercentEncode(bucket), *id)},
      {"X-GUploader-UploadID", *id}};
  return response;
}

HttpResponse InsertObject(BucketStore& buckets, const RoutedRequest& request) {
  const std::string* upload_type = request.Query("uploadType");
  const std::string type = upload_type != nullptr                                ? *upload_type
                           : request.http.content_type.starts_with("multipart/") ? "multipart"
                                                                                 : "media";
  if (type == "media") {
    return MediaUpload(buckets, request);
  }
  if (type == "multipart") {
    return MultipartUpload(buckets, request);
  }
  if (type == "resumable") {
    return StartResumable(buckets, request);
  }
  return StorageErrorResponse(BadParam(
      "uploadType", fmt::format("Unsupported uploadType \"{}\"; expected media, multipart or "
                                "resumable.",
                                type)));
}

HttpResponse ResumeUpload(BucketStore& buckets, const RoutedRequest& request) {
  const std::string* id = request.Query("upload_id");
  if (id == nullptr || id->empty()) {
    return StorageErrorResponse(BadParam("upload_id", "Required parameter: upload_id"));
  }
  const HttpRequest& http = request.http;
  std::string chunk = http.body_file;
  std::int64_t body_size = static_cast<std::int64_t>(http.body.size());
  if (!chunk.empty()) {
    std::error_code ec;
    body_size = static_cast<std::int64_t>(std::filesystem::file_size(chunk, ec));
  }
  Result<ChunkRange> range = ParseContentRange(http.Header("content-range"), body_size);
  if (!range.ok()) {
    return StorageErrorResponse(range.status());
  }
  std::string temp;
  if (chunk.empty()) {
    temp = TempPath(buckets, "chunk");
    Result<os::UniqueFd> out = CreateScratch(temp);
    const Status written =
        out.ok() ? WriteScratch(out->get(), http.body, temp) : Status(out.status());
    if (!written.ok()) {
      (void)os::RemoveFile(temp);
      return StorageErrorResponse(written);
    }
    chunk = temp;
  }
  Result<store::UploadStatus> status =
      range->first.has_value() || range->total.has_value()
          ? buckets.AppendUpload(*id, range->first.value_or(0), chunk, range->total)
          : buckets.QueryUpload(*id);
  if (!temp.empty()) {
    (void)os::RemoveFile(temp);
  }
  if (!status.ok()) {
    return StorageErrorResponse(status.status());
  }
  if (status->object.has_value()) {
    return JsonResponse(ObjectJson(*status->object, BaseUrl(http)));
  }
  HttpResponse incomplete{.status = 308};
  if (status->received > 0) {
    incomplete.headers.emplace_back("Range", fmt::format("bytes=0-{}", status->received - 1));
  }
  return incomplete;
}

HttpResponse CancelUpload(BucketStore& buckets, const RoutedRequest& request) {
  const std::string* id = request.Query("upload_id");
  const Status status = buckets.CancelUpload(id == nullptr ? "" : *id);
  if (!status.ok()) {
    return StorageErrorResponse(status);
  }
  return HttpResponse{.status = 499};  // what GCS answers a cancelled session
}

// Appends the whole object `bucket`/`name` to the scratch file `out` (`path`), NOT_FOUND when it
// is gone.
Status AppendObject(BucketStore& buckets, std::string_view bucket, std::string_view name, int out,
                    const std::string& path) {
  Result<os::UniqueFd> in = buckets.OpenObject(bucket, name);
  if (!in.ok()) {
    return in.status();
  }
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  for (std::string chunk;; chunk.clear()) {
    if (const int error = os::ReadAtMost(in->get(), kChunk, chunk); error != 0) {
      const char* reason = std::strerror(error);  // NOLINT(concurrency-mt-unsafe): errno text only
      return Status::Unavailable(fmt::format("cannot read {}/{}: {}", bucket, name, reason));
    }
    if (chunk.empty()) {
      return {};
    }
    TY_RETURN_IF_ERROR(WriteScratch(out, chunk, path));
  }
}

}  // namespace

HttpResponse ComposeObject(BucketStore& buckets, const RoutedRequest& request) {
  Result<ComposeRequest> compose = ParseComposeRequest(request.http.body);
  if (!compose.ok()) {
    return StorageErrorResponse(compose.status());
  }
  const Result<Preconditions> conditions = WriteConditions(request);
  if (!conditions.ok()) {
    return StorageErrorResponse(conditions.status());
  }
  const std::string& bucket = request.Param("bucket");
  const std::string& name = request.Param("object");
  for (const ComposeSource& source : compose->sources) {
    Result<store::ObjectInfo> info = buckets.GetObject(bucket, source.name);
    const Status readable = info.ok() ? CheckComposeSource(source, *info) : info.status();
    if (!readable.ok()) {
      return StorageErrorResponse(readable);
    }
  }
  const std::string temp = TempPath(buckets, "compose");
  Result<os::UniqueFd> out = CreateScratch(temp);
  if (!out.ok()) {
    return StorageErrorResponse(out.status());
  }
  Status written;
  for (const ComposeSource& source : compose->sources) {
    written = AppendObject(buckets, bucket, source.name, out->get(), temp);
    if (!written.ok()) {
      break;
    }
  }
  out->reset();
  if (!written.ok()) {
    (void)os::RemoveFile(temp);
    return StorageErrorResponse(written);
  }
  const ObjectWrite& destination = compose->destination;
  Result<store::ObjectInfo> object =
      buckets.PutObjectFromFile(bucket, name, temp, destination.content_type, destination.metadata,
                                destination.headers, *conditions);
  (void)os::RemoveFile(temp);  // moved into place on success
  return ObjectAnswer(object, request);
}

void AddStorageUploadRoutes(Router& router, store::BucketStore& buckets) {
  BucketStore* b = &buckets;
  for (const std::string_view pattern : {kUpload, kResumableUpload}) {
    router.Add(
        StorageRoute({.method = "POST",
                      .pattern = std::string(pattern),
                      .name = "storage.objects.insert",
                      .handler = [b](const RoutedRequest& r) { return InsertObject(*b, r); },
                      .access = {InBucket("storage.objects.create")},
                      .audit = StorageChanges("storage.objects.create", AuditResource::kObject)}));
  }
  router.Add(
      StorageRoute({.method = "PUT",
                    .pattern = std::string(kUpload),
                    .name = "storage.objects.upload",
                    .handler = [b](const RoutedRequest& r) { return ResumeUpload(*b, r); },
                    .access = {InBucket("storage.objects.create")},
                    .audit = StorageChanges("storage.objects.create", AuditResource::kObject)}));
  // Dropping an unfinished upload changes no object.
  router.Add(
      StorageRoute({.method = "DELETE",
                    .pattern = std::string(kUpload),
                    .name = "storage.objects.cancelUpload",
                    .handler = [b](const RoutedRequest& r) { return CancelUpload(*b, r); },
                    .access = {InBucket("storage.objects.create")},
                    .audit = StorageReads("storage.objects.create", AuditResource::kBucket)}));
}

}  // namespace trainyard::server
