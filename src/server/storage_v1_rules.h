// The storage v1 API's request rules that need no store, for storage_v1_handlers.cc and
// storage_v1_uploads.cc: the `Content-Range` of a resumable upload's PUT. Pure and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/status.h"

namespace trainyard::server {

// What a resumable upload's PUT says of its body.
struct ChunkRange {
  std::optional<std::int64_t> first;  // none for a body-less status query or finalisation
  std::int64_t length = 0;            // the body's bytes
  std::optional<std::int64_t> total;  // the object's size, once the client knows it
};

// The chunk a PUT of `body_size` bytes carries, from its `Content-Range` header, in each form
// GCS's resumable protocol and its client libraries use:
//   (absent)        the whole object in this body;
//   "bytes A-B/N"   bytes A..B of an N-byte object ("bytes A-B/*" while N is not known);
//   "bytes A-*/N"   the body is the object from byte A on, N bytes in all (what the Node
//                   client sends for a whole stream in one request; a short body leaves the
//                   session open, as "bytes A-B/N" does);
//   "bytes A-*/*"   the same with N not known beforehand: the body ends the object, which has
//                   A + body_size bytes (as Google's own storage testbench finalises it);
//   "bytes */N"     no body: the object has N bytes (finalises once they were all received);
//   "bytes */*"     no body: a status query.
// INVALID_ARGUMENT on "Content-Range" for anything else, and for a range whose length is not
// the body's.
Result<ChunkRange> ParseContentRange(std::string_view header, std::int64_t body_size);

}  // namespace trainyard::server
