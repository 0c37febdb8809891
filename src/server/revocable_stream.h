// A streamed response (a Kubernetes watch, a log follow) that ends once its caller's credential
// no longer holds (issue #31): a token revoked or expired while the stream is open ends the
// stream within `recheck` rather than when the client goes away.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "base/clock.h"
#include "server/http_message.h"

namespace trainyard::server {

// How often an open stream re-checks its caller's token.
inline constexpr std::chrono::seconds kStreamRecheck{2};

// Wraps `inner`: every `recheck` (by `clock`) it asks `still_valid`, and ends the stream at once,
// sending nothing more of `inner`, when that says no. Called on one connection's strand like any
// stream; `clock` must outlive it.
std::shared_ptr<ResponseStream> RevocableStream(std::shared_ptr<ResponseStream> inner,
                                                std::function<bool()> still_valid,
                                                const Clock& clock,
                                                std::chrono::milliseconds recheck = kStreamRecheck);

}  // namespace trainyard::server
