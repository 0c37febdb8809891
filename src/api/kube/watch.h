// Internal to the Kubernetes API: `?watch=true` on TFJobs and pods, as a streamed body of watch
// events ({"type":"ADDED"|"MODIFIED"|"DELETED","object":{…}} one per line; with
// `Accept: …as=Table`, the object is a one-row Table, as `kubectl get -w` asks). TFJobs are read
// from the store's revisions: every poll lists those written after the last revision seen. Pods
// have no revisions (they are derived from the TFJob and its replicas): every poll derives them
// again and says what changed.
#pragma once

#include "api/kube/internal.h"
#include "api/kube/selectors.h"
#include "server/http_message.h"

namespace trainyard::server::kube_internal {

// `resourceVersion` absent or "0": every matching TFJob first (ADDED), then the changes; else
// only what was written after it. `timeoutSeconds` ends the stream (default 30 minutes).
HttpResponse WatchTFJobs(const Context& context, const Request& request, Selector labels,
                         Selector fields);

// `resourceVersion` absent or "0": every matching pod first (ADDED), then the changes; else the
// pods as they are now are taken as known. `timeoutSeconds` as for TFJobs.
HttpResponse WatchPods(const Context& context, const Request& request, Selector labels,
                       Selector fields);

}  // namespace trainyard::server::kube_internal
