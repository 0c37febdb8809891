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

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "kube/kube_status.h"
#include "kube/tfjob.h"
#include "model/job.h"

namespace trainyard::kube {

struct TFJobUpdate {
  TFJob job;  // the new object, with the operator's defaults filled in as the stored one has them
  bool spec_changed = false;            // metadata.generation moves on
  bool priority_class_changed = false;  // the class is admitted anew, as on create
};

// `next` in place of `old` (the stored object), without the metadata the server sets (uid,
// resourceVersion, generation, the timestamps: an update cannot set them, so a GET's output sent
// back is no change); `started`: the job has left the queue. 422
// Invalid with a cause per broken rule: the webhook's (`ValidateTFJob`, with `old` for the
// immutable fields) and, once started, a change outside the fields above (cause `spec`).
KubeResult<TFJobUpdate> ApplyUpdate(const TFJob& old, TFJob next, bool started);

// Whether the TFJob's job has started, so that only what ApplyUpdate allows then may change: it
// has left the queue, or it ran before (suspended or preempted back into the queue: its cluster
// stays as it ran).
bool HasStarted(const model::Job& job);

// A PUT's or patch's precondition (Kubernetes' optimistic concurrency): the resourceVersion the
// object names (`given`) must be the stored object's (`stored`, the store's revision of it); an
// object that names none takes the stored one. ABORTED otherwise, which the API answers as
// 409 Conflict ("the object has been modified").
Status CheckResourceVersion(std::string_view given, std::int64_t stored);

// The job to store when a TFJob update is accepted: `mapped` is the updated TFJob's job (ToJob
// under the stored job's id and uid), `current` the job as stored now. Before the job has
// `started` the whole definition moves over; after, the cluster stays as it runs (each role's
// extras, the training input but its scheduling) and the rest of the extras (the run policy's
// mutable parts, the stored TFJob) and the scheduling move. The labels always move. The job
// stays `resumed` once runPolicy.suspend flips back (Suspended=False, TFJobResumed, from then
// on); the generation moves on when `spec_changed`; a deletion mark stays. nullopt when
// `current` is no longer the TFJob `mapped` replaces (its uid differs: deleted and created anew
// meanwhile). Both jobs must be TFJobs (`extras->kube` set). The result still goes through
// validate::Validate.
std::optional<model::Job> MergeReplacement(const model::Job& current, const model::Job& mapped,
                                           bool started, bool spec_changed);

// `job` marked deleted at `now` (metadata.deletionTimestamp); nullopt when there is nothing to
// change: it is not a Kubernetes object, or it is marked already (the first mark stays).
std::optional<model::Job> MarkDeleted(const model::Job& job, WallTime now);

// The object a server-side apply of `manifest` (JSON, as kubectl sends it) makes of the TFJob
// last written as `stored` (its document; "{}" when absent): `stored` without its status and the
// metadata the server sets (resourceVersion, uid, generation, creationTimestamp,
// deletionTimestamp, managedFields), with the manifest merged over it (RFC 7386, the manifest's
// status dropped). An unchanged manifest so gives the stored object back, and a resourceVersion
// only the manifest names is still checked. As JSON; 400 when `manifest` is not a JSON object.
KubeResult<std::string> ServerSideApplyBase(std::string_view stored, std::string_view manifest);

}  // namespace trainyard::kube
