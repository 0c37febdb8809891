// The client side of google.rpc errors: turns an HTTP error response of the ml v1 API back into
// a `Status` (docs/reference/ai-platform-training.md §1.5). The body is the "v2 error format" that
// `server/rpc_error.h` writes:
//   {"error":{"code":400,"message":"…","status":"INVALID_ARGUMENT",
//             "details":[{"@type":"type.googleapis.com/google.rpc.BadRequest",
//                         "fieldViolations":[{"field":"…","description":"…"}]}]}}
// Pure and thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"

namespace trainyard::cli {

// The code named by `name` ("NOT_FOUND"), or nullopt for a name google.rpc does not define.
std::optional<Code> CodeFromName(std::string_view name);

// The code Google's APIs use for an HTTP status when the body names none (400 INVALID_ARGUMENT,
// 404 NOT_FOUND, 409 ABORTED, 503 UNAVAILABLE, …).
Code CodeFromHttpStatus(int http_status);

// The `Status` an error response carries. Code: `error.status`, else from `http_status`;
// message: `error.message`; violations: every `fieldViolations` entry of a BadRequest detail.
// A body that is not such a document (a proxy's HTML page) keeps its first 200 bytes in the
// message. Violations on a code other than INVALID_ARGUMENT are appended to the message, and
// CANCELLED, UNKNOWN and DATA_LOSS (which `Status` has no factory for) become INTERNAL with
// their name in front of the message. Never OK: `http_status` is assumed to be outside 2xx.
Status StatusFromHttpError(int http_status, std::string_view body);

}  // namespace trainyard::cli
