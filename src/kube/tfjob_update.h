// Updating a stored TFJob (PUT, or a patch applied to the object as a GET shows it): which fields
// may change and what the change is. Pure.
//
// Metadata (labels, annotations) may always change; the spec while the job has not started (it
// is mapped again); once it has, only runPolicy.suspend (suspend and resume),
// activeDeadlineSeconds, backoffLimit and ttlSecondsAfterFinished. Anything else is a 422 that
// says to delete the TFJob and apply it again, as trainyard cannot reshape a running cluster.
//
// A server-side apply (`kubectl apply --server-side`, docs/reference/kubeflow-tfjob.md §13) is an
// update too, simplified: trainyard
// keeps no managedFields, so a manifest sets the fields it names over the TFJob as last written
// and leaves the others (ServerSideApplyBase), and never conflicts with another manager.
#pragma once

#include <string>
#include <string_view>

#include "kube/kube_status.h"
#include "kube/tfjob.h"

namespace trainyard::kube {

struct TFJobUpdate {
  TFJob job;  // the new object, with the operator's defaults filled in as the stored one has them
  bool spec_changed = false;            // metadata.generation moves on
  bool priority_class_changed = false;  // the class is admitted anew, as on create
};

// `next` in place of `old` (the stored object); `started`: the job has left the queue. 422
// Invalid with a cause per broken rule: the webhook's (`ValidateTFJob`, with `old` for the
// immutable fields) and, once started, a change outside the fields above (cause `spec`).
KubeResult<TFJobUpdate> ApplyUpdate(const TFJob& old, TFJob next, bool started);

// The object a server-side apply of `manifest` (JSON, as kubectl sends it) makes of the TFJob
// last written as `stored` (its document; "{}" when absent): `stored` without its status and the
// metadata the server sets (resourceVersion, uid, generation, creationTimestamp,
// deletionTimestamp, managedFields), with the manifest merged over it (RFC 7386, the manifest's
// status dropped). An unchanged manifest so gives the stored object back, and a resourceVersion
// only the manifest names is still checked. As JSON; 400 when `manifest` is not a JSON object.
KubeResult<std::string> ServerSideApplyBase(std::string_view stored, std::string_view manifest);

}  // namespace trainyard::kube
