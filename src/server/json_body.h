// The checks every JSON API (ml v1, Vertex AI) makes of a request body before decoding it.
#pragma once

#include <string_view>

#include "base/status.h"
#include "server/http_message.h"

namespace trainyard::server {

// A body is JSON: no Content-Type (lenient, as most clients send one) or application/json.
Status CheckJsonBody(const HttpRequest& request);

// The body of a request message with no fields (`message`, e.g. "CancelJobRequest"): empty or
// "{}". An unknown member is INVALID_ARGUMENT naming it, in Google's words.
Status CheckEmptyMessage(const HttpRequest& request, std::string_view message);

}  // namespace trainyard::server
