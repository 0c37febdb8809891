// Checksums of object bytes as GCS reports them, internal to store/: `md5Hash` is the base64 of
// the MD5 digest, `crc32c` the base64 of the big-endian CRC32C (Castagnoli). Also the base64
// codec the store's page tokens use. Pure and thread-safe, except `HashFile`, which reads a file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "os/file_handle.h"

namespace trainyard::store::internal {

struct ObjectHashes {
  std::int64_t size = 0;
  std::string md5_base64;
  std::string crc32c_base64;
};

// Both checksums of a byte stream fed in pieces.
class ObjectHasher {
 public:
  ObjectHasher();
  ~ObjectHasher();
  ObjectHasher(const ObjectHasher&) = delete;
  ObjectHasher& operator=(const ObjectHasher&) = delete;

  void Update(std::string_view bytes);
  // The checksums of everything given to `Update`; call once.
  ObjectHashes Finish();

 private:
  struct Md5;
  std::unique_ptr<Md5> md5_;
  std::uint32_t crc_ = 0;
  std::int64_t size_ = 0;
};

// CRC32C of `bytes` continuing from `crc` (0 to start).
std::uint32_t ExtendCrc32c(std::uint32_t crc, std::string_view bytes);

ObjectHashes HashBytes(std::string_view bytes);
// Reads the file at `path` once; UNAVAILABLE when it cannot be read.
Result<ObjectHashes> HashFile(const std::string& path);
// The same for the open file `file`, from its start.
Result<ObjectHashes> HashFile(const os::File& file);

std::string Base64Encode(std::string_view bytes);
// nullopt when `text` is not padded standard base64.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace trainyard::store::internal
