#include "control/page_token.h"

#include <chrono>
#include <cstdint>
#include <optional>

#include "base/base64.h"
#include "control/resource_names.h"
#include "validate/validate.h"

namespace trainyard::control {
namespace {

// Layout: one version byte, the createTime in nanoseconds since the epoch as 8 big-endian bytes,
// then the job id. The version lets a later format coexist with tokens already handed out.
constexpr char kVersion = 1;
constexpr std::size_t kHeaderSize = 9;

Status Malformed() {
  return Status::InvalidArgument(std::vector<FieldViolation>{
      {"pageToken", "The page token is malformed; pass nextPageToken from a previous response."}});
}

}  // namespace

std::string EncodePageToken(const store::ListCursor& cursor) {
  auto nanos = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(cursor.create_time.time_since_epoch())
          .count());
  std::string bytes(kHeaderSize, '\0');
  bytes[0] = kVersion;
  for (std::size_t i = kHeaderSize - 1; i >= 1; --i) {
    bytes[i] = static_cast<char>(nanos & 0xff);
    nanos >>= 8;
  }
  bytes += cursor.job_id;
  return Base64Encode(bytes, Base64Alphabet::kUrlSafe);
}

Result<store::ListCursor> DecodePageToken(std::string_view token) {
  const std::optional<std::string> bytes = Base64Decode(token, Base64Alphabet::kUrlSafe);
  if (!bytes.has_value() || bytes->size() <= kHeaderSize || (*bytes)[0] != kVersion) {
    return Malformed();
  }
  std::uint64_t nanos = 0;
  for (std::size_t i = 1; i < kHeaderSize; ++i) {
    nanos = (nanos << 8) | static_cast<unsigned char>((*bytes)[i]);
  }
  std::string job_id = bytes->substr(kHeaderSize);
  if (!validate::IsStoredJobId(job_id)) {
    return Malformed();
  }
  const std::chrono::nanoseconds since_epoch(static_cast<std::int64_t>(nanos));
  return store::ListCursor{WallTime(std::chrono::duration_cast<WallTime::duration>(since_epoch)),
                           std::move(job_id)};
}

}  // namespace trainyard::control
