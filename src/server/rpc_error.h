// google.rpc error responses: the one place that maps a `Status` to an HTTP status and to the
// "v2 error format" body gcloud renders (docs/reference/ai-platform-training.md §1.5):
//   {"error":{"code":400,"message":"…","status":"INVALID_ARGUMENT",
//             "details":[{"@type":"type.googleapis.com/google.rpc.BadRequest",
//                         "fieldViolations":[{"field":"…","description":"…"}]}]}}
// `details` is present only when the status carries field violations; for RESOURCE_EXHAUSTED
// (a quota, sched/quota_check.h) they are a google.rpc.QuotaFailure's instead:
//   {"@type":"type.googleapis.com/google.rpc.QuotaFailure",
//    "violations":[{"subject":"project:p","description":"…"}]}
// Pure and thread-safe.
#pragma once

#include <string>

#include "base/status.h"
#include "server/http_message.h"

namespace trainyard::server {

// INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE: 400; UNAUTHENTICATED: 401;
// PERMISSION_DENIED: 403; NOT_FOUND: 404; ALREADY_EXISTS, ABORTED: 409; RESOURCE_EXHAUSTED: 429;
// CANCELLED: 499; UNIMPLEMENTED: 501; UNAVAILABLE: 503; DEADLINE_EXCEEDED: 504; others: 500.
int HttpStatusFor(Code code);

// The JSON body for `status` (not OK) answered with HTTP `http_status`.
std::string RpcErrorBody(int http_status, const Status& status);

// The response for `status` (not OK), with the HTTP status `HttpStatusFor` gives.
HttpResponse ErrorResponse(const Status& status);

// The same with an HTTP status of the transport's own (405, 413, 431) that no code maps to.
HttpResponse ErrorResponse(int http_status, const Status& status);

}  // namespace trainyard::server
