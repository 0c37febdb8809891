// Internal to the Kubernetes API: `?watch=true` on TFJobs, as a streamed body of watch events
// ({"type":"ADDED"|"MODIFIED"|"DELETED","object":{…}} one per line), read from the store's
// revisions: every poll lists the TFJobs written after the last revision seen.
#pragma once

#include "server/http_message.h"
#include "server/kube_internal.h"
#include "server/kube_selectors.h"

namespace trainyard::server::kube_internal {

// `resourceVersion` absent or "0": every matching TFJob first (ADDED), then the changes; else
// only what was written after it. `timeoutSeconds` ends the stream (default 30 minutes).
HttpResponse WatchTFJobs(const Context& context, const Request& request, Selector labels,
                         Selector fields);

}  // namespace trainyard::server::kube_internal
