// What trainyard makes of a TFJob's runPolicy.schedulingPolicy (issue #34), honoured rather than
// warned of. Pure.
//
//   - queue: a queue is a project's quota, and a TFJob's namespace is its project, so the only
//     queue a TFJob may name is its own namespace ("" is the same); another is refused (422,
//     the field named), as trainyard cannot run a job in one project and count it in another's.
//   - minAvailable: the PodGroup's minMember (docs/reference/kubeflow-tfjob.md §6): the operator
//     defaults it to the replicas' total, and Volcano starts a job once that many pods can run.
//     trainyard places every job as a gang of all its replicas, so the total (or unset) is
//     honoured as is; fewer would start the job with some replicas still pending (Volcano's
//     elastic gang, where the rest start as room frees), which trainyard does not do, and more
//     could never be met (Volcano leaves such a PodGroup pending for ever): both refused (422).
//   - priorityClass: the name of a class in the admin's table (sched::SharingPolicy); the job's
//     priority is its number (control/reconcile/priority.h). A class the table lacks is refused
//     as Kubernetes's Priority admission plugin refuses a pod naming one: 403 Forbidden
//     `tfjobs.kubeflow.org "x" is forbidden: no PriorityClass with name high was found`.
//   - minResources is still only warned of (tfjob_notices.h); scheduleTimeoutSeconds is the job's
//     maxWaitTime (tfjob_mapping.h).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kube/kube_status.h"
#include "kube/tfjob.h"

namespace trainyard::kube {

// The causes of a 422 for the queue and minAvailable (empty: honoured).
std::vector<StatusCause> SchedulingPolicyCauses(const TFJob& job);

// The replicas' total: what minAvailable defaults to.
std::int32_t TotalReplicas(const TFJob& job);

// The 403 for a priorityClass `classes` (the admin's table) lacks; nullopt when it has it or
// the TFJob names none.
std::optional<KubeError> PriorityClassRefusal(
    const TFJob& job, const std::map<std::string, int, std::less<>>& classes);

}  // namespace trainyard::kube
