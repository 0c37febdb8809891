// `multipart/related` request bodies as the storage v1 API receives them (uploadType=multipart):
// a JSON metadata part, then the object's bytes. Parsed by positions, so that a body spooled to a
// file is never read whole: the metadata comes from the first bytes, the end of the media from
// the last ones. Both CRLF and bare LF line ends are accepted (gcloud sends LF), and the boundary
// may be quoted with double or single quotes (gcloud uses single ones). Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace trainyard::server {

struct MultipartRelated {
  std::string metadata;            // the first part's body (JSON, maybe empty)
  std::string media_content_type;  // the second part's Content-Type; empty when absent
  std::uint64_t media_offset = 0;  // where the second part's body starts in the whole body
  std::uint64_t media_length = 0;
};

// Parses a body of `total` bytes whose first bytes are `head` and last bytes are `tail` (both may
// be the whole body); `content_type` is the request's Content-Type. INVALID_ARGUMENT (field
// "Content-Type" or "body") when it is not multipart/related with a boundary, or the parts are not
// found in `head`/`tail`.
Result<MultipartRelated> ParseMultipartRelated(std::string_view content_type, std::string_view head,
                                               std::string_view tail, std::uint64_t total);

// The same for a body in the file at `path` (reads at most its first 1 MiB and last 4 KiB).
Result<MultipartRelated> ParseMultipartFile(std::string_view content_type, const std::string& path);

// Writes bytes [offset, offset + length) of file `source` to the new file `target`.
Status CopyFileRange(const std::string& source, std::uint64_t offset, std::uint64_t length,
                     const std::string& target);

}  // namespace trainyard::server
