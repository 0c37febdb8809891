// The resumable upload methods of `FileBucketStore`: a session is a row in storage.db and a file
// `<scratch>/sessions/<id>` holding the bytes received so far; its size is the progress.
#include <algorithm>
#include <chrono>
#include <random>

#include <fmt/format.h>

#include "os/dir.h"
#include "os/file_status.h"
#include "store/file_bucket_store.h"
#include "store/object_names.h"

namespace trainyard::store::internal {
namespace {

Status NoSuchUpload() {
  return Status::NotFound("No such upload session: it was cancelled, expired or never existed.");
}

// Ids are 32 lowercase hex digits, checked before one becomes part of a path.
bool IsUploadId(std::string_view id) {
  return id.size() == 32 && std::ranges::all_of(id, [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string NewUploadId() {
  std::random_device random;
  std::string id;
  for (int i = 0; i < 4; ++i) {
    id += fmt::format("{:08x}", random());
  }
  return id;
}

Result<std::int64_t> FileSize(const std::string& path) {
  Result<os::FileStatus> info = os::StatLink(path);
  if (!info.ok()) {
    return StoreIoError(info.status());
  }
  return info->size;
}

Status BadRange(std::string description) {
  return Status::InvalidArgument({{"Content-Range", std::move(description)}});
}

}  // namespace

std::string FileBucketStore::SessionFile(std::string_view id) const {
  return sessions_ + "/" + std::string(id);
}

Result<UploadRow> FileBucketStore::FindUpload(std::string_view upload_id) {
  if (!IsUploadId(upload_id)) {
    return NoSuchUpload();
  }
  auto upload = db_->GetUpload(upload_id);
  if (!upload.ok()) {
    return upload.status();
  }
  if (!upload->has_value()) {
    return NoSuchUpload();
  }
  return **std::move(upload);
}

Result<std::string> FileBucketStore::StartUpload(std::string_view bucket, std::string_view name,
                                                 std::string_view content_type,
                                                 const std::map<std::string, std::string>& metadata,
                                                 const ObjectHeaders& headers,
                                                 const Preconditions& conditions) {
  TY_RETURN_IF_ERROR(CheckBucketName(bucket));
  TY_RETURN_IF_ERROR(CheckObjectName(bucket, name, NameUse::kWrite));
  TY_RETURN_IF_ERROR(GetBucket(bucket).status());
  const UploadRow upload{.id = NewUploadId(),
                         .bucket = std::string(bucket),
                         .name = std::string(name),
                         .content_type = std::string(content_type),
                         .metadata = metadata,
                         .headers = headers,
                         .conditions = conditions,
                         .create_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          clock_.Now().time_since_epoch())
                                          .count()};
  TY_RETURN_IF_ERROR(WriteNewFile(SessionFile(upload.id), ""));
  Status inserted = db_->InsertUpload(upload);
  if (!inserted.ok()) {
    (void)os::RemoveFile(SessionFile(upload.id));
    return inserted;
  }
  return upload.id;
}

Result<UploadStatus> FileBucketStore::AppendUpload(std::string_view upload_id, std::int64_t offset,
                                                   const std::string& chunk_path,
                                                   std::optional<std::int64_t> total_size) {
  std::lock_guard lock(uploads_mu_);
  Result<UploadRow> upload = FindUpload(upload_id);
  if (!upload.ok()) {
    return upload.status();
  }
  if (upload->done) {
    return QueryUpload(upload_id);  // a retried last chunk: the object is written
  }
  const std::string session = SessionFile(upload->id);
  Result<std::int64_t> received = FileSize(session);
  Result<std::int64_t> chunk = FileSize(chunk_path);
  if (!received.ok() || !chunk.ok()) {
    return received.ok() ? chunk.status() : received.status();
  }
  if (offset < 0 || offset > *received) {
    return BadRange(fmt::format(
        "The chunk starts at byte {}, but only {} bytes were received; resume from byte {}.",
        offset, *received, *received));
  }
  const std::int64_t end = offset + *chunk;
  if (total_size.has_value() && (end > *total_size || *received > *total_size)) {
    return BadRange(fmt::format("The chunk ends at byte {}, past the object's size of {} bytes.",
                                end, *total_size));
  }
  if (end > *received) {
    TY_RETURN_IF_ERROR(AppendFileTail(chunk_path, *received - offset, session));
    *received = end;
  }
  if (!total_size.has_value() || *received < *total_size) {
    return UploadStatus{.received = *received};
  }
  Result<ObjectHashes> hashes = HashFile(session);
  if (!hashes.ok()) {
    return hashes.status();
  }
  TY_RETURN_IF_ERROR(GetBucket(upload->bucket).status());  // it may have gone meanwhile
  Result<ObjectInfo> object =
      Install(upload->bucket, upload->name, session, *hashes, upload->content_type,
              upload->metadata, upload->headers, upload->conditions);
  if (!object.ok()) {
    if (IsConditionNotMet(object.status())) {  // it can never be written: forget it
      TY_RETURN_IF_ERROR(CancelUpload(upload->id));
    }
    return object.status();
  }
  TY_RETURN_IF_ERROR(db_->MarkUploadDone(upload->id));
  return UploadStatus{.received = *received, .object = *std::move(object)};
}

Result<UploadStatus> FileBucketStore::QueryUpload(std::string_view upload_id) {
  Result<UploadRow> upload = FindUpload(upload_id);
  if (!upload.ok()) {
    return upload.status();
  }
  if (upload->done) {
    Result<ObjectInfo> object = GetObject(upload->bucket, upload->name);
    if (!object.ok()) {
      return object.status();
    }
    return UploadStatus{.received = object->size, .object = *std::move(object)};
  }
  Result<std::int64_t> received = FileSize(SessionFile(upload->id));
  if (!received.ok()) {
    return received.status();
  }
  return UploadStatus{.received = *received};
}

Status FileBucketStore::CancelUpload(std::string_view upload_id) {
  Result<UploadRow> upload = FindUpload(upload_id);
  if (!upload.ok()) {
    return upload.status();
  }
  (void)os::RemoveFile(SessionFile(upload->id));
  return db_->DeleteUpload(upload->id);
}

}  // namespace trainyard::store::internal
