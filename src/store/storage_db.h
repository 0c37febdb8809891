// The bucket store's metadata in SQLite (`storage.db`), internal to store/: buckets, what the
// file system does not hold about objects, and resumable upload sessions. Its own schema
// migrations, separate from the job store's. One connection behind a mutex; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "store/bucket_store.h"
#include "store/object_files.h"
#include "store/sqlite_connection.h"

namespace trainyard::store::internal {

// What the store knows of one object; valid while the file still has `stat`.
struct ObjectRow {
  std::int64_t generation = 0;
  std::int64_t metageneration = 1;
  std::string content_type;
  std::map<std::string, std::string> metadata;
  ObjectHeaders headers;
  FileStat stat;
  std::string md5_base64;
  std::string crc32c_base64;
  std::int64_t updated_ns = 0;
};

struct UploadRow {
  std::string id;
  std::string bucket;
  std::string name;
  std::string content_type;
  std::map<std::string, std::string> metadata;
  ObjectHeaders headers;
  Preconditions conditions;  // evaluated when the object is written
  std::int64_t create_ns = 0;
  bool done = false;  // the object was written; the session only answers status queries
};

class StorageDb {
 public:
  // Opens (creating) the database at `path` in WAL mode and applies the storage migrations.
  static Result<std::unique_ptr<StorageDb>> Open(const std::string& path);

  // ALREADY_EXISTS when a bucket of that name exists.
  Status InsertBucket(const BucketInfo& bucket);
  Result<std::optional<BucketInfo>> GetBucket(std::string_view name);
  Result<std::vector<BucketInfo>> ListBuckets(std::string_view project);
  // Removes the bucket and every row of its objects and uploads, in one transaction that first
  // checks `conditions` on its metageneration (`CheckBucketConditions`: `ConditionNotMet()` when
  // they do not hold; NOT_FOUND when there is no such bucket) and then runs `remove_files` (when
  // given: the caller's own removal, of what the file system holds; its error rolls the
  // transaction back). `remove_files` runs with the database's lock held and must not call it.
  Status DeleteBucket(std::string_view name, const Preconditions& conditions,
                      const std::function<Status()>& remove_files = {});
  // Sets the labels and settings when the metageneration is `expected_metageneration`, raising it
  // and setting `updated`; ABORTED when it is another, NOT_FOUND when there is no such bucket.
  Result<BucketInfo> UpdateBucket(std::string_view name,
                                  const std::map<std::string, std::string>& labels,
                                  const std::map<std::string, std::string>& settings,
                                  std::int64_t expected_metageneration, WallTime updated);
  Result<std::vector<std::string>> BucketProjects();

  Result<std::optional<ObjectRow>> GetObject(std::string_view bucket, std::string_view name);
  Status PutObject(std::string_view bucket, std::string_view name, const ObjectRow& row);
  Status DeleteObject(std::string_view bucket, std::string_view name);

  Status InsertUpload(const UploadRow& upload);
  Result<std::optional<UploadRow>> GetUpload(std::string_view id);
  Status MarkUploadDone(std::string_view id);
  Status DeleteUpload(std::string_view id);
  // The ids of sessions created before `create_ns`.
  Result<std::vector<std::string>> UploadsBefore(std::int64_t create_ns);

 private:
  explicit StorageDb(std::unique_ptr<Connection> db) : db_(std::move(db)) {}

  // GetBucket with mu_ held.
  Result<std::optional<BucketInfo>> GetBucketLocked(std::string_view name);

  std::mutex mu_;
  std::unique_ptr<Connection> db_;  // guarded by mu_
};

}  // namespace trainyard::store::internal
