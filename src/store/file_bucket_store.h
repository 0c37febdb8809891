// The file-backed `BucketStore`, internal to store/ (others call `OpenFileBucketStore`). Its
// methods are defined in file_bucket_store.cc (buckets and objects) and upload_sessions.cc
// (resumable uploads). Thread-safe, as the interface promises.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "store/bucket_store.h"
#include "store/hashes.h"
#include "store/object_files.h"
#include "store/storage_db.h"

namespace trainyard::store::internal {

class FileBucketStore final : public BucketStore {
 public:
  FileBucketStore(std::string root, std::unique_ptr<StorageDb> db, const Clock& clock);

  // Creates the directories and forgets leftovers of interrupted uploads.
  Status Init();

  Result<BucketInfo> CreateBucket(std::string_view project, std::string_view name) override;
  Result<BucketInfo> GetBucket(std::string_view name) const override;
  Result<std::vector<BucketInfo>> ListBuckets(std::string_view project) const override;
  Status DeleteBucket(std::string_view name, const Preconditions& conditions) override;
  Result<BucketInfo> UpdateBucket(std::string_view name,
                                  const std::map<std::string, std::string>& labels,
                                  const std::map<std::string, std::string>& settings,
                                  std::int64_t expected_metageneration) override;
  Result<std::vector<std::string>> BucketProjects() const override;

  Result<ObjectInfo> PutObjectFromFile(std::string_view bucket, std::string_view name,
                                       const std::string& source_path,
                                       std::string_view content_type,
                                       const std::map<std::string, std::string>& metadata,
                                       const ObjectHeaders& headers,
                                       const Preconditions& conditions) override;
  Result<ObjectInfo> PutObject(std::string_view bucket, std::string_view name,
                               std::string_view data, std::string_view content_type,
                               const std::map<std::string, std::string>& metadata,
                               const ObjectHeaders& headers,
                               const Preconditions& conditions) override;
  Result<ObjectInfo> CopyObject(std::string_view source_bucket, std::string_view source_name,
                                std::string_view target_bucket, std::string_view target_name,
                                const Preconditions& source_conditions,
                                const Preconditions& conditions) override;
  Result<ObjectInfo> GetObject(std::string_view bucket, std::string_view name) override;
  Result<os::UniqueFd> OpenObject(std::string_view bucket, std::string_view name) override;
  Status DeleteObject(std::string_view bucket, std::string_view name,
                      const Preconditions& conditions) override;
  Result<ObjectInfo> PatchObject(std::string_view bucket, std::string_view name,
                                 const ObjectPatch& patch,
                                 const Preconditions& conditions) override;
  Result<ObjectListing> ListObjects(std::string_view bucket,
                                    const ListObjectsRequest& request) override;

  Result<std::string> StartUpload(std::string_view bucket, std::string_view name,
                                  std::string_view content_type,
                                  const std::map<std::string, std::string>& metadata,
                                  const ObjectHeaders& headers,
                                  const Preconditions& conditions) override;
  Result<UploadStatus> AppendUpload(std::string_view upload_id, std::int64_t offset,
                                    const std::string& chunk_path,
                                    std::optional<std::int64_t> total_size) override;
  Result<UploadStatus> QueryUpload(std::string_view upload_id) override;
  Status CancelUpload(std::string_view upload_id) override;

  const std::string& root() const override { return root_; }
  const std::string& scratch_dir() const override { return scratch_; }

 private:
  std::string BucketDir(std::string_view bucket) const;
  std::string ObjectFile(std::string_view bucket, std::string_view name) const;
  // The bucket's directory (`OpenBucketDir`).
  Result<os::Dir> OpenBucket(std::string_view bucket) const;
  std::string SessionFile(std::string_view id) const;

  // The session `upload_id` (NOT_FOUND for an unknown or malformed id).
  Result<UploadRow> FindUpload(std::string_view upload_id);
  // Moves `temp` (flushed, with `hashes`) into place as the object and records it, when
  // `conditions` hold for the object it replaces (`ConditionNotMet()` otherwise).
  Result<ObjectInfo> Install(std::string_view bucket, std::string_view name,
                             const std::string& temp, const ObjectHashes& hashes,
                             std::string_view content_type,
                             const std::map<std::string, std::string>& metadata,
                             const ObjectHeaders& headers, const Preconditions& conditions);
  // The live object's version as preconditions see it, with write_mu_ held: its row's while that
  // describes the file, else the numbers `Describe` will give a file written behind the store's
  // back (no hashing needed); nullopt when there is no object.
  Result<std::optional<ObjectVersion>> LiveVersion(const os::Dir& bucket_dir,
                                                   std::string_view bucket, std::string_view name);
  // The object whose file has `stat`, its row recomputed when the file changed behind the store.
  Result<ObjectInfo> Describe(const os::Dir& bucket_dir, std::string_view bucket,
                              std::string_view name, FileStat stat);

  const std::string root_;
  const std::string scratch_;
  const std::string sessions_;
  std::unique_ptr<StorageDb> db_;
  const Clock& clock_;
  // Serialises changes of object files with their rows, so that a row always describes the file
  // it was computed for.
  std::mutex write_mu_;
  std::mutex uploads_mu_;  // serialises appends to sessions; taken before write_mu_
};

}  // namespace trainyard::store::internal
