// List page tokens: an opaque, URL-safe spelling of the store's cursor (the createTime and jobId
// of the last job a page examined), so a listing stays exact while jobs are being created.
// Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "store/job_store.h"

namespace trainyard::control {

std::string EncodePageToken(const store::ListCursor& cursor);

// INVALID_ARGUMENT (on "pageToken") for anything `EncodePageToken` did not write.
Result<store::ListCursor> DecodePageToken(std::string_view token);

}  // namespace trainyard::control
