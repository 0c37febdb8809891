// The bucket store behind `gs://` URIs and the storage v1 API.
//
// An object's bytes are a plain file: `<root>/<bucket>/<object name>`. That is the contract the
// rest of trainyard relies on: staging reads packages there, and a replica's `--job-dir gs://b/p`
// is the directory `<root>/b/p`, so a trainer's plain file IO and the storage API see the same
// objects. Metadata the file system does not hold (generation, content type, custom metadata,
// md5/crc32c) lives beside it in SQLite; an object written by file IO rather than through this
// store is still listed and read, its hashes computed when first asked for (and recomputed when
// its size, mtime or inode changed). A bucket exists once `CreateBucket` recorded it: a directory
// made under `<root>` by other means is not one (its objects are not served).
//
// Names are checked before any IO: bucket names as GCS's (3-63 characters of [a-z0-9_.-],
// starting and ending with a letter or digit); object names of 1-1024 bytes of UTF-8 with no NUL,
// CR or LF, no "." or ".." segment, no segment longer than 255 bytes, not starting with "/", and
// not ending with "/" nor holding "//" (folders are implied by names). A bad name is
// INVALID_ARGUMENT naming "bucket" or "object" -- except that reading, deleting or listing never
// finds a name ending with "/" or holding "//" (NOT_FOUND, as GCS answers for a missing "folder"
// object). Symbolic links and special files under a bucket are not objects, nor are files whose
// names break these rules: nothing outside `<root>/<bucket>` is reachable. Objects are opened,
// created, renamed into place, removed and walked relative to the bucket's directory descriptor,
// each component without following a link (`os::Dir`, os/dir.h), so a job that writes its bucket
// and swaps a directory for a link mid-request still reaches nothing outside it.
//
// Writes go to a file in `scratch_dir()` that is flushed and then renamed into place, so a reader
// sees the old or the new bytes, never a mix. Thread-safe; several processes may open the same
// root and database (SQLite in WAL mode), though concurrent writes of one object from two
// processes may leave its metadata to be recomputed.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "os/unique_fd.h"
#include "store/preconditions.h"

namespace trainyard::store {

// A change of a map of strings (an object's user metadata) as GCS's PATCH sends it: the member
// null drops every key (`clear`), then each key named is set to its value or, when null
// (nullopt), removed.
struct KeyChanges {
  bool clear = false;
  std::map<std::string, std::optional<std::string>> keys;
};

// `current` with `changes` applied (a removed key that is not there is no error, as GCS).
inline std::map<std::string, std::string> ApplyKeyChanges(
    std::map<std::string, std::string> current, const KeyChanges& changes) {
  if (changes.clear) {
    current.clear();
  }
  for (const auto& [key, value] : changes.keys) {
    if (value.has_value()) {
      current[key] = *value;
    } else {
      current.erase(key);
    }
  }
  return current;
}

struct BucketInfo {
  std::string name;
  std::string project;
  WallTime create_time;
  std::int64_t metageneration = 1;  // 1 at creation, then one more at each metadata change
  WallTime updated;                 // the last metadata change (`create_time` before any)
  std::map<std::string, std::string> labels;
  // The other members of GCS's bucket resource kept as given and served back (`cors`,
  // `website`: api/storage/rules.h says which), by name, each as its JSON text.
  std::map<std::string, std::string> settings;
};

// The object fields GCS serves as a download's headers, set when the object is written ("" when
// not). `content_encoding` "gzip" means the bytes are stored compressed and served as stored.
struct ObjectHeaders {
  std::string cache_control;
  std::string content_disposition;
  std::string content_encoding;
  std::string content_language;

  bool operator==(const ObjectHeaders&) const = default;
};

// Each of them with its name in GCS's object resource and as an HTTP header, for codecs.
struct ObjectHeaderField {
  std::string_view json_name;
  std::string_view http_name;
  std::string ObjectHeaders::*field;
};
inline constexpr std::array<ObjectHeaderField, 4> kObjectHeaderFields = {{
    {"cacheControl", "Cache-Control", &ObjectHeaders::cache_control},
    {"contentDisposition", "Content-Disposition", &ObjectHeaders::content_disposition},
    {"contentEncoding", "Content-Encoding", &ObjectHeaders::content_encoding},
    {"contentLanguage", "Content-Language", &ObjectHeaders::content_language},
}};

struct ObjectInfo {
  std::string bucket;
  std::string name;
  std::int64_t size = 0;
  std::int64_t generation = 0;      // microseconds since the epoch of the last write
  std::int64_t metageneration = 1;  // 1 at each write, then one more at each metadata change
  std::string content_type;         // "application/octet-stream" when not given
  std::string md5_base64;           // as GCS's md5Hash
  std::string crc32c_base64;        // as GCS's crc32c (big-endian, base64)
  WallTime updated;
  std::map<std::string, std::string> metadata;  // user metadata
  ObjectHeaders headers;
};

// A change of an object's metadata (GCS's objects.patch): the bytes and the generation stay, the
// metageneration goes up by one. A field left nullopt keeps its value; "" clears a header field
// and resets the content type to application/octet-stream.
struct ObjectPatch {
  std::optional<std::string> content_type;
  // By kObjectHeaderFields' order.
  std::array<std::optional<std::string>, kObjectHeaderFields.size()> headers;
  KeyChanges metadata;  // of the user metadata
};

struct ObjectListing {
  std::vector<ObjectInfo> objects;    // names in byte order
  std::vector<std::string> prefixes;  // with a delimiter: the "folders", in order
  std::string next_page_token;        // empty on the last page
};

// Where a resumable upload stands.
struct UploadStatus {
  std::int64_t received = 0;         // bytes persisted, from offset 0
  std::optional<ObjectInfo> object;  // set once the upload is complete
};

struct ListObjectsRequest {
  std::string prefix;
  std::string delimiter;     // "" or e.g. "/"
  int max_results = 1000;    // clamped to [1, 1000]
  std::string page_token;    // a `next_page_token`; anything else is INVALID_ARGUMENT
  std::string start_offset;  // only names >= it ("" for no bound)
  std::string end_offset;    // only names < it ("" for no bound)
  // Only names matching this glob (GCS's `matchGlob` syntax, store/object_glob.h; "" for all);
  // a malformed one is INVALID_ARGUMENT on "matchGlob". With a delimiter, a prefix is listed
  // when an object folded into it passes these filters.
  std::string match_glob;
};

class BucketStore {
 public:
  virtual ~BucketStore() = default;

  // ALREADY_EXISTS when the bucket exists (in any project).
  virtual Result<BucketInfo> CreateBucket(std::string_view project, std::string_view name) = 0;
  virtual Result<BucketInfo> GetBucket(std::string_view name) const = 0;  // NOT_FOUND
  virtual Result<std::vector<BucketInfo>> ListBuckets(std::string_view project) const = 0;
  // Removes the bucket when `conditions` (`ifMetagenerationMatch`, `ifMetagenerationNotMatch`;
  // empty for none) hold for its metageneration, evaluated in the transaction that removes it (a
  // change landing in between cannot slip past them): `ConditionNotMet()` when they do not, and
  // the bucket stays. Then FAILED_PRECONDITION when the bucket is not empty.
  virtual Status DeleteBucket(std::string_view name, const Preconditions& conditions) = 0;
  // Replaces the bucket's changeable fields (its labels and settings) when its metageneration is
  // still `expected_metageneration` (compare-and-swap), raising the metageneration by one and
  // setting `updated`. ABORTED when it moved on, NOT_FOUND when there is no such bucket. The
  // fields are stored as given: the caller checks them.
  virtual Result<BucketInfo> UpdateBucket(std::string_view name,
                                          const std::map<std::string, std::string>& labels,
                                          const std::map<std::string, std::string>& settings,
                                          std::int64_t expected_metageneration) = 0;
  // The projects that hold a bucket, in order.
  virtual Result<std::vector<std::string>> BucketProjects() const = 0;

  // Every change of an object takes `conditions` (GCS's request preconditions on the object it
  // replaces, changes or removes; empty for none) and evaluates them under the lock that orders
  // writes, against the live object as the write finds it: when they do not hold, nothing is
  // written and the answer is `ConditionNotMet()` (store/preconditions.h). Of two writers racing
  // with `ifGenerationMatch = 0`, one writes and the other is refused.
  //
  // Writes the object from the file at `source_path` (moved into place when on the same file
  // system, so a large upload is never copied through memory) and returns its metadata.
  // NOT_FOUND when the bucket does not exist; FAILED_PRECONDITION when the name collides with a
  // folder of other objects ("a" when "a/b" exists) or the other way round.
  virtual Result<ObjectInfo> PutObjectFromFile(std::string_view bucket, std::string_view name,
                                               const std::string& source_path,
                                               std::string_view content_type,
                                               const std::map<std::string, std::string>& metadata,
                                               const ObjectHeaders& headers,
                                               const Preconditions& conditions) = 0;
  // The same from bytes in memory.
  virtual Result<ObjectInfo> PutObject(std::string_view bucket, std::string_view name,
                                       std::string_view data, std::string_view content_type,
                                       const std::map<std::string, std::string>& metadata,
                                       const ObjectHeaders& headers,
                                       const Preconditions& conditions) = 0;

  // Copies an object's bytes, content type, metadata and headers to another name (maybe in another
  // bucket), after the checks of `GetObject` for the source and `PutObject` for the target.
  // `source_conditions` (a rewrite's ifSource…) are evaluated on the generation whose bytes are
  // copied, `conditions` on the target as for `PutObject`.
  virtual Result<ObjectInfo> CopyObject(std::string_view source_bucket,
                                        std::string_view source_name,
                                        std::string_view target_bucket,
                                        std::string_view target_name,
                                        const Preconditions& source_conditions,
                                        const Preconditions& conditions) = 0;

  // NOT_FOUND for a missing bucket or object (the message says which).
  virtual Result<ObjectInfo> GetObject(std::string_view bucket, std::string_view name) = 0;
  // The object's file opened for reading (for streaming a download), after the same checks; it
  // was reached beneath the bucket's directory without following any link.
  virtual Result<os::UniqueFd> OpenObject(std::string_view bucket, std::string_view name) = 0;
  // NOT_FOUND for a missing object (before its `conditions` are looked at).
  virtual Status DeleteObject(std::string_view bucket, std::string_view name,
                              const Preconditions& conditions) = 0;
  // Changes the metadata of an object, after the checks of `GetObject`.
  virtual Result<ObjectInfo> PatchObject(std::string_view bucket, std::string_view name,
                                         const ObjectPatch& patch,
                                         const Preconditions& conditions) = 0;
  virtual Result<ObjectListing> ListObjects(std::string_view bucket,
                                            const ListObjectsRequest& request) = 0;

  // Resumable uploads (GCS's protocol): a session holds the bytes received so far in the scratch
  // dir and survives a restart; sessions are forgotten a week after they start. Ids are opaque;
  // an unknown one is NOT_FOUND.
  //
  // Starts a session for an object, after the same checks as `PutObject`. The session keeps
  // `conditions`, which are evaluated when its last byte arrives, with the write; when they do not
  // hold then, the session is cancelled and the append answers `ConditionNotMet()`.
  virtual Result<std::string> StartUpload(std::string_view bucket, std::string_view name,
                                          std::string_view content_type,
                                          const std::map<std::string, std::string>& metadata,
                                          const ObjectHeaders& headers,
                                          const Preconditions& conditions) = 0;
  // Adds the bytes of the file `chunk_path`, which start at byte `offset` of the object (bytes
  // already received are skipped; starting past them is INVALID_ARGUMENT on "Content-Range").
  // `total_size` is the object's size once the client knows it; the object is written when that
  // many bytes were received.
  virtual Result<UploadStatus> AppendUpload(std::string_view upload_id, std::int64_t offset,
                                            const std::string& chunk_path,
                                            std::optional<std::int64_t> total_size) = 0;
  virtual Result<UploadStatus> QueryUpload(std::string_view upload_id) = 0;
  virtual Status CancelUpload(std::string_view upload_id) = 0;

  // `<root>`: the directory whose subdirectories are the buckets.
  virtual const std::string& root() const = 0;
  // A directory on the same file system as the buckets for uploads in progress (`<root>/.uploads`,
  // which no bucket name can collide with). Plain files left there over a day are removed when a
  // store is opened.
  virtual const std::string& scratch_dir() const = 0;
};

// Objects under `root_dir` (created when missing), metadata in the SQLite file `metadata_db`.
Result<std::unique_ptr<BucketStore>> OpenFileBucketStore(const std::string& root_dir,
                                                         const std::string& metadata_db,
                                                         const Clock& clock);

}  // namespace trainyard::store
