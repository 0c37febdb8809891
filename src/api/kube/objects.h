// Internal to the Kubernetes API: a stored job as the TFJob and the pods kubectl reads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/kube/internal.h"
#include "api/kube/selectors.h"
#include "kube/tables.h"
#include "kube/tfjob_status.h"
#include "store/job_store.h"

namespace trainyard::server::kube_internal {

// The store's newest revision (0 when it cannot be read: a list is then not resumable).
std::int64_t CurrentRevision(const Context& context);

// What the executor knows of the job's replicas now, else what their exit files say.
std::vector<kube::ReplicaView> ReplicaViewsOf(const Context& context,
                                              const store::RevisionedJob& job);

// The TFJob as JSON: the stored document (metadata and spec as last written), with the
// server's metadata (uid, resourceVersion, generation, creation and deletion timestamps) and
// the status derived from the job and its replicas.
std::string RenderTFJob(const Context& context, const store::RevisionedJob& job);
kube::TFJobRow TableRowOf(const Context& context, const store::RevisionedJob& job);

// A pod of a live TFJob, with the job it belongs to.
struct FoundPod {
  store::RevisionedJob job;
  kube::Pod pod;
};

// The pods of the live TFJobs in `namespace_name` ("" for every namespace) that the selectors
// take (fields: metadata.name, metadata.namespace, status.phase, spec.nodeName).
Result<std::vector<FoundPod>> SelectedPods(const Context& context, std::string_view namespace_name,
                                           const Selector& labels, const Selector& fields);

// Whether the selectors of a list or watch take this TFJob.
bool SelectsTFJob(const Selector& labels, const Selector& fields, const store::RevisionedJob& job);

}  // namespace trainyard::server::kube_internal
