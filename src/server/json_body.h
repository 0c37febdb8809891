// The checks every JSON API (ml v1, Vertex AI) makes of a request before decoding it: its body,
// and a list's page size.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "server/http_message.h"

namespace trainyard::server {

// A body is JSON: no Content-Type (lenient, as most clients send one) or application/json.
Status CheckJsonBody(const HttpRequest& request);

// The body of a request message with no fields (`message`, e.g. "CancelJobRequest"): empty or
// "{}". An unknown member is INVALID_ARGUMENT naming it, in Google's words.
Status CheckEmptyMessage(const HttpRequest& request, std::string_view message);

// A list's `pageSize` query parameter, an int32 in decimal (0 when absent or empty);
// INVALID_ARGUMENT on "pageSize" otherwise.
Result<int> ParsePageSize(const std::string* text);

}  // namespace trainyard::server
