// `OpenFileBucketStore` and the bucket and object methods of `FileBucketStore` (listing in
// object_listing.cc, resumable uploads in upload_sessions.cc).
#include "store/file_bucket_store.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "base/clock.h"
#include "os/dir.h"
#include "store/object_names.h"

namespace trainyard::store {
namespace internal {
namespace {

constexpr std::string_view kDefaultContentType = "application/octet-stream";
// A file changing while it is hashed is hashed again, this many times at most.
constexpr int kHashAttempts = 3;
constexpr auto kScratchFileLifetime = std::chrono::hours(24);
constexpr auto kUploadLifetime = std::chrono::hours(24 * 7);

std::int64_t ToMicros(WallTime time) {
  return std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
}

Status CheckNames(std::string_view bucket, std::string_view name, NameUse use) {
  TY_RETURN_IF_ERROR(CheckBucketName(bucket));
  return CheckObjectName(bucket, name, use);
}

ObjectInfo ToInfo(std::string_view bucket, std::string_view name, const ObjectRow& row) {
  return ObjectInfo{.bucket = std::string(bucket),
                    .name = std::string(name),
                    .size = row.stat.size,
                    .generation = row.generation,
                    .metageneration = row.metageneration,
                    .content_type = row.content_type,
                    .md5_base64 = row.md5_base64,
                    .crc32c_base64 = row.crc32c_base64,
                    .updated = WallTime(std::chrono::duration_cast<WallTime::duration>(
                        std::chrono::nanoseconds(row.updated_ns))),
                    .metadata = row.metadata,
                    .headers = row.headers};
}

// The generation of an object whose file (with `stat`) was written behind the store's back:
// its mtime, and always past the generation recorded before (`old`, null when none).
std::int64_t FileGeneration(const FileStat& stat, const ObjectRow* old) {
  return std::max(stat.mtime_ns / 1000, old != nullptr ? old->generation + 1 : 0);
}

// Removes the plain files directly in `dir` last changed before `before`.
void RemoveStaleFiles(const std::string& dir, WallTime before) {
  const std::int64_t cutoff_ns = ToNanos(before);
  Result<os::Dir> scratch = os::Dir::Open(dir);
  Result<std::vector<os::DirEntry>> entries =
      scratch.ok() ? scratch->List() : Result<std::vector<os::DirEntry>>(scratch.status());
  if (!entries.ok()) {
    return;
  }
  for (const os::DirEntry& entry : *entries) {
    if (entry.info.regular() && entry.info.mtime_ns < cutoff_ns) {
      (void)scratch->Remove(entry.name);
    }
  }
}

}  // namespace

FileBucketStore::FileBucketStore(std::string root, std::unique_ptr<StorageDb> db,
                                 const Clock& clock)
    : root_(std::move(root)),
      scratch_(root_ + "/.uploads"),
      sessions_(scratch_ + "/sessions"),
      db_(std::move(db)),
      clock_(clock) {}

Status FileBucketStore::Init() {
  std::error_code ec;
  std::filesystem::create_directories(sessions_, ec);
  if (ec) {
    return Status::Unavailable(
        fmt::format("cannot create the bucket directory {}: {}", sessions_, ec.message()));
  }
  RemoveStaleFiles(scratch_, clock_.Now() - kScratchFileLifetime);
  auto expired = db_->UploadsBefore(ToNanos(clock_.Now() - kUploadLifetime));
  if (!expired.ok()) {
    return expired.status();
  }
  for (const std::string& id : *expired) {
    TY_RETURN_IF_ERROR(CancelUpload(id));
  }
  return {};
}

std::string FileBucketStore::BucketDir(std::string_view bucket) const {
  return root_ + "/" + std::string(bucket);
}

std::string FileBucketStore::ObjectFile(std::string_view bucket, std::string_view name) const {
  return BucketDir(bucket) + "/" + std::string(name);
}

Result<os::Dir> FileBucketStore::OpenBucket(std::string_view bucket) const {
  return OpenBucketDir(BucketDir(bucket));
}

Result<BucketInfo> FileBucketStore::CreateBucket(std::string_view project, std::string_view name) {
  TY_RETURN_IF_ERROR(CheckBucketName(name));
  if (project.empty()) {
    return Status::InvalidArgument({{"project", "A bucket belongs to a project; none given."}});
  }
  const WallTime now = clock_.Now();
  BucketInfo bucket{.name = std::string(name),
                    .project = std::string(project),
                    .create_time = now,
                    .updated = now};
  TY_RETURN_IF_ERROR(db_->InsertBucket(bucket));
  std::error_code ec;
  std::filesystem::create_directories(BucketDir(name), ec);
  if (ec) {
    (void)db_->DeleteBucket(name, {});
    return Status::Unavailable(fmt::format("cannot create {}: {}", BucketDir(name), ec.message()));
  }
  return bucket;
}

Result<BucketInfo> FileBucketStore::GetBucket(std::string_view name) const {
  TY_RETURN_IF_ERROR(CheckBucketName(name));
  auto bucket = db_->GetBucket(name);
  if (!bucket.ok()) {
    return bucket.status();
  }
  if (!bucket->has_value()) {
    return Status::NotFound("The specified bucket does not exist.");
  }
  return **bucket;
}

Result<std::vector<BucketInfo>> FileBucketStore::ListBuckets(std::string_view project) const {
  return db_->ListBuckets(project);
}

Result<BucketInfo> FileBucketStore::UpdateBucket(std::string_view name,
                                                 const std::map<std::string, std::string>& labels,
                                                 const std::map<std::string, std::string>& settings,
                                                 std::int64_t expected_metageneration) {
  TY_RETURN_IF_ERROR(CheckBucketName(name));
  return db_->UpdateBucket(name, labels, settings, expected_metageneration, clock_.Now());
}

Result<std::vector<std::string>> FileBucketStore::BucketProjects() const {
  return db_->BucketProjects();
}

Status FileBucketStore::DeleteBucket(std::string_view name, const Preconditions& conditions) {
  TY_RETURN_IF_ERROR(CheckBucketName(name));
  std::lock_guard lock(write_mu_);  // no object is written meanwhile
  // In the transaction that removes the bucket's rows, after its preconditions held.
  const auto remove_files = [&]() -> Status {
    Result<os::Dir> bucket_dir = OpenBucket(name);
    if (bucket_dir.ok() && HoldsFiles(*bucket_dir)) {
      return Status::FailedPrecondition("The bucket you tried to delete is not empty.");
    }
    Result<os::Dir> root = OpenBucketDir(root_);
    if (!root.ok()) {
      return root.status();
    }
    if (Status removed = root->RemoveAll(std::string(name)); !removed.ok()) {
      return StoreIoError(removed);
    }
    return {};
  };
  return db_->DeleteBucket(name, conditions, remove_files);
}

Result<ObjectInfo> FileBucketStore::PutObjectFromFile(
    std::string_view bucket, std::string_view name, const std::string& source_path,
    std::string_view content_type, const std::map<std::string, std::string>& metadata,
    const ObjectHeaders& headers, const Preconditions& conditions) {
  TY_RETURN_IF_ERROR(CheckNames(bucket, name, NameUse::kWrite));
  TY_RETURN_IF_ERROR(GetBucket(bucket).status());
  Result<ObjectHashes> hashes = HashFile(source_path);
  if (!hashes.ok()) {
    return hashes.status();
  }
  TY_RETURN_IF_ERROR(SyncPath(source_path));
  return Install(bucket, name, source_path, *hashes, content_type, metadata, headers, conditions);
}

Result<ObjectInfo> FileBucketStore::PutObject(std::string_view bucket, std::string_view name,
                                              std::string_view data, std::string_view content_type,
                                              const std::map<std::string, std::string>& metadata,
                                              const ObjectHeaders& headers,
                                              const Preconditions& conditions) {
  TY_RETURN_IF_ERROR(CheckNames(bucket, name, NameUse::kWrite));
  TY_RETURN_IF_ERROR(GetBucket(bucket).status());
  const std::string temp = UniqueScratchPath(scratch_, "put");
  Status written = WriteNewFile(temp, data);
  Result<ObjectInfo> info = written.ok() ? Install(bucket, name, temp, HashBytes(data),
                                                   content_type, metadata, headers, conditions)
                                         : Result<ObjectInfo>(written);
  if (!info.ok()) {
    (void)os::RemoveFile(temp);
  }
  return info;
}

Result<ObjectInfo> FileBucketStore::CopyObject(std::string_view source_bucket,
                                               std::string_view source_name,
                                               std::string_view target_bucket,
                                               std::string_view target_name,
                                               const Preconditions& source_conditions,
                                               const Preconditions& conditions) {
  TY_RETURN_IF_ERROR(CheckNames(source_bucket, source_name, NameUse::kRead));
  TY_RETURN_IF_ERROR(CheckNames(target_bucket, target_name, NameUse::kWrite));
  TY_RETURN_IF_ERROR(GetBucket(target_bucket).status());
  // The source file opened, and the row that describes that very file: the bytes copied are those
  // of the generation `source_conditions` are evaluated on.
  std::optional<OpenedObject> file;
  std::optional<ObjectInfo> source;
  for (int attempt = 0; attempt < kHashAttempts && !source.has_value(); ++attempt) {
    // Describes (and records) a file written behind the store's back first.
    TY_RETURN_IF_ERROR(GetObject(source_bucket, source_name).status());
    Result<os::Dir> source_dir = OpenBucket(source_bucket);
    file = source_dir.ok() ? OpenObjectFile(*source_dir, source_name) : std::nullopt;
    if (!file.has_value()) {
      return NoSuchObject(source_bucket, source_name);
    }
    std::lock_guard lock(write_mu_);
    auto row = db_->GetObject(source_bucket, source_name);
    if (!row.ok()) {
      return row.status();
    }
    if (row->has_value() && (*row)->stat == file->stat) {
      source = ToInfo(source_bucket, source_name, **row);
    }
  }
  if (!source.has_value()) {
    return Status::Unavailable(
        fmt::format("The object {}/{} is being written; try again when it is complete.",
                    source_bucket, source_name));
  }
  TY_RETURN_IF_ERROR(CheckWriteConditions(
      source_conditions,
      ObjectVersion{.generation = source->generation, .metageneration = source->metageneration}));
  const std::string temp = UniqueScratchPath(scratch_, "copy");
  Status copied = AppendFileTail(file->file, 0, temp);
  Result<ObjectHashes> hashes = copied.ok() ? HashFile(temp) : Result<ObjectHashes>(copied);
  Result<ObjectInfo> info =
      hashes.ok() ? Install(target_bucket, target_name, temp, *hashes, source->content_type,
                            source->metadata, source->headers, conditions)
                  : Result<ObjectInfo>(hashes.status());
  if (!info.ok()) {
    (void)os::RemoveFile(temp);
  }
  return info;
}

Result<ObjectInfo> FileBucketStore::Install(std::string_view bucket, std::string_view name,
                                            const std::string& temp, const ObjectHashes& hashes,
                                            std::string_view content_type,
                                            const std::map<std::string, std::string>& metadata,
                                            const ObjectHeaders& headers,
                                            const Preconditions& conditions) {
  const std::string target = ObjectFile(bucket, name);
  std::lock_guard lock(write_mu_);
  Result<os::Dir> bucket_dir = OpenBucket(bucket);
  if (!bucket_dir.ok()) {
    return bucket_dir.status();
  }
  if (!conditions.empty()) {  // evaluated with the write, under its lock
    Result<std::optional<ObjectVersion>> live = LiveVersion(*bucket_dir, bucket, name);
    if (!live.ok()) {
      return live.status();
    }
    TY_RETURN_IF_ERROR(CheckWriteConditions(conditions, *live));
  }
  Result<os::Dir> parent = PrepareObjectPath(*bucket_dir, bucket, name);
  if (!parent.ok()) {
    return parent.status();
  }
  TY_RETURN_IF_ERROR(MoveFile(temp, *parent, LeafName(name), scratch_));
  if (Status synced = parent->Sync(); !synced.ok()) {
    return StoreIoError(synced);
  }
  const std::optional<FileStat> stat = StatObjectFile(*bucket_dir, name);
  if (!stat.has_value() || stat->size != hashes.size) {
    return Status::Unavailable(fmt::format("{} changed while it was written", target));
  }
  auto previous = db_->GetObject(bucket, name);
  if (!previous.ok()) {
    return previous.status();
  }
  const WallTime now = clock_.Now();
  const ObjectRow row{.generation = std::max(
                          ToMicros(now), previous->has_value() ? (*previous)->generation + 1 : 0),
                      .content_type = content_type.empty() ? std::string(kDefaultContentType)
                                                           : std::string(content_type),
                      .metadata = metadata,
                      .headers = headers,
                      .stat = *stat,
                      .md5_base64 = hashes.md5_base64,
                      .crc32c_base64 = hashes.crc32c_base64,
                      .updated_ns = ToNanos(now)};
  TY_RETURN_IF_ERROR(db_->PutObject(bucket, name, row));
  return ToInfo(bucket, name, row);
}

Result<ObjectInfo> FileBucketStore::Describe(const os::Dir& bucket_dir, std::string_view bucket,
                                             std::string_view name, FileStat stat) {
  auto row = db_->GetObject(bucket, name);
  if (!row.ok()) {
    return row.status();
  }
  if (row->has_value() && (*row)->stat == stat) {
    return ToInfo(bucket, name, **row);
  }
  // Written behind the store's back (plain file IO): hash it, then record the result unless the
  // file changed meanwhile.
  const std::string path = ObjectFile(bucket, name);
  for (int attempt = 0; attempt < kHashAttempts; ++attempt) {
    std::optional<OpenedObject> file = OpenObjectFile(bucket_dir, name);
    Result<ObjectHashes> hashes =
        file.has_value() ? HashFile(file->file)
                         : Result<ObjectHashes>(Status::Unavailable("cannot read " + path));
    std::lock_guard lock(write_mu_);
    const std::optional<FileStat> now = StatObjectFile(bucket_dir, name);
    if (!now.has_value()) {
      return NoSuchObject(bucket, name);
    }
    if (!hashes.ok() && *now == stat) {
      return hashes.status();  // unreadable, not changing
    }
    if (!hashes.ok() || *now != stat || hashes->size != stat.size) {
      stat = *now;
      continue;
    }
    auto previous = db_->GetObject(bucket, name);  // again: a writer may have come first
    if (!previous.ok()) {
      return previous.status();
    }
    const ObjectRow* old = previous->has_value() ? &**previous : nullptr;
    const ObjectRow fresh{
        .generation = FileGeneration(stat, old),
        .content_type = old != nullptr ? old->content_type : std::string(kDefaultContentType),
        .metadata = old != nullptr ? old->metadata : std::map<std::string, std::string>{},
        .headers = old != nullptr ? old->headers : ObjectHeaders{},
        .stat = stat,
        .md5_base64 = hashes->md5_base64,
        .crc32c_base64 = hashes->crc32c_base64,
        .updated_ns = stat.mtime_ns};
    TY_RETURN_IF_ERROR(db_->PutObject(bucket, name, fresh));
    return ToInfo(bucket, name, fresh);
  }
  return Status::Unavailable(fmt::format(
      "The object {}/{} is being written; try again when it is complete.", bucket, name));
}

Result<std::optional<ObjectVersion>> FileBucketStore::LiveVersion(const os::Dir& bucket_dir,
                                                                  std::string_view bucket,
                                                                  std::string_view name) {
  const std::optional<FileStat> stat = StatObjectFile(bucket_dir, name);
  if (!stat.has_value()) {
    return std::optional<ObjectVersion>();
  }
  auto row = db_->GetObject(bucket, name);
  if (!row.ok()) {
    return row.status();
  }
  if (row->has_value() && (*row)->stat == *stat) {
    return std::optional<ObjectVersion>(
        ObjectVersion{.generation = (*row)->generation, .metageneration = (*row)->metageneration});
  }
  return std::optional<ObjectVersion>(
      ObjectVersion{.generation = FileGeneration(*stat, row->has_value() ? &**row : nullptr),
                    .metageneration = ObjectRow{}.metageneration});
}

Result<ObjectInfo> FileBucketStore::GetObject(std::string_view bucket, std::string_view name) {
  TY_RETURN_IF_ERROR(CheckNames(bucket, name, NameUse::kRead));
  TY_RETURN_IF_ERROR(GetBucket(bucket).status());
  Result<os::Dir> bucket_dir = OpenBucket(bucket);
  const std::optional<FileStat> stat =
      bucket_dir.ok() ? StatObjectFile(*bucket_dir, name) : std::nullopt;
  if (!stat.has_value()) {
    return NoSuchObject(bucket, name);
  }
  return Describe(*bucket_dir, bucket, name, *stat);
}

Result<ObjectInfo> FileBucketStore::PatchObject(std::string_view bucket, std::string_view name,
                                                const ObjectPatch& patch,
                                                const Preconditions& conditions) {
  for (int attempt = 0; attempt < kHashAttempts; ++attempt) {
    // Describes (and records) a file written behind the store's back first.
    const Result<ObjectInfo> current = GetObject(bucket, name);
    if (!current.ok()) {
      return current.status();
    }
    std::lock_guard lock(write_mu_);
    Result<os::Dir> bucket_dir = OpenBucket(bucket);
    const std::optional<FileStat> stat =
        bucket_dir.ok() ? StatObjectFile(*bucket_dir, name) : std::nullopt;
    if (!stat.has_value()) {
      return NoSuchObject(bucket, name);
    }
    auto stored = db_->GetObject(bucket, name);
    if (!stored.ok()) {
      return stored.status();
    }
    if (!stored->has_value() || (*stored)->stat != *stat ||
        (*stored)->generation != current->generation) {
      continue;  // written meanwhile: describe it again
    }
    ObjectRow row = **stored;
    TY_RETURN_IF_ERROR(CheckWriteConditions(
        conditions,
        ObjectVersion{.generation = row.generation, .metageneration = row.metageneration}));
    if (patch.content_type.has_value()) {
      row.content_type =
          patch.content_type->empty() ? std::string(kDefaultContentType) : *patch.content_type;
    }
    for (std::size_t i = 0; i < kObjectHeaderFields.size(); ++i) {
      if (patch.headers[i].has_value()) {
        row.headers.*kObjectHeaderFields[i].field = *patch.headers[i];
      }
    }
    row.metadata = ApplyKeyChanges(std::move(row.metadata), patch.metadata);
    row.metageneration += 1;
    row.updated_ns = ToNanos(clock_.Now());
    TY_RETURN_IF_ERROR(db_->PutObject(bucket, name, row));
    return ToInfo(bucket, name, row);
  }
  return Status::Unavailable(fmt::format(
      "The object {}/{} is being written; try again when it is complete.", bucket, name));
}

Result<os::UniqueFd> FileBucketStore::OpenObject(std::string_view bucket, std::string_view name) {
  TY_RETURN_IF_ERROR(CheckNames(bucket, name, NameUse::kRead));
  TY_RETURN_IF_ERROR(GetBucket(bucket).status());
  Result<os::Dir> bucket_dir = OpenBucket(bucket);
  std::optional<OpenedObject> file =
      bucket_dir.ok() ? OpenObjectFile(*bucket_dir, name) : std::nullopt;
  if (!file.has_value()) {
    return NoSuchObject(bucket, name);
  }
  return std::move(file->file).TakeFd();
}

Status FileBucketStore::DeleteObject(std::string_view bucket, std::string_view name,
                                     const Preconditions& conditions) {
  TY_RETURN_IF_ERROR(CheckNames(bucket, name, NameUse::kRead));
  TY_RETURN_IF_ERROR(GetBucket(bucket).status());
  std::lock_guard lock(write_mu_);
  Result<os::Dir> bucket_dir = OpenBucket(bucket);
  std::optional<os::Dir> parent = bucket_dir.ok() ? OpenParentDir(*bucket_dir, name) : std::nullopt;
  const std::string leaf = LeafName(name);
  Result<os::FileStatus> leaf_info =
      parent.has_value() ? parent->Stat(leaf) : Result<os::FileStatus>(NoSuchObject(bucket, name));
  if (!leaf_info.ok() || !leaf_info->regular()) {
    return NoSuchObject(bucket, name);
  }
  if (!conditions.empty()) {  // evaluated with the removal, under its lock
    Result<std::optional<ObjectVersion>> live = LiveVersion(*bucket_dir, bucket, name);
    if (!live.ok()) {
      return live.status();
    }
    TY_RETURN_IF_ERROR(CheckWriteConditions(conditions, *live));
  }
  if (Status removed = parent->Remove(leaf); !removed.ok() && removed.code() != Code::kNotFound) {
    return StoreIoError(removed);
  }
  return db_->DeleteObject(bucket, name);
}
}  // namespace internal

Result<std::unique_ptr<BucketStore>> OpenFileBucketStore(const std::string& root_dir,
                                                         const std::string& metadata_db,
                                                         const Clock& clock) {
  std::error_code ec;
  std::filesystem::create_directories(root_dir, ec);
  if (ec) {
    return Status::Unavailable(fmt::format("cannot create {}: {}", root_dir, ec.message()));
  }
  auto db = internal::StorageDb::Open(metadata_db);
  if (!db.ok()) {
    return db.status();
  }
  std::string root = std::filesystem::absolute(root_dir).lexically_normal().string();
  if (root.size() > 1 && root.ends_with('/')) {
    root.pop_back();
  }
  auto store = std::make_unique<internal::FileBucketStore>(std::move(root), *std::move(db), clock);
  TY_RETURN_IF_ERROR(store->Init());
  return std::unique_ptr<BucketStore>(std::move(store));
}

}  // namespace trainyard::store
