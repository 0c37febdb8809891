// What a valid TFJob asks that trainyard does not do as the Kubeflow operator would, said as
// Kubernetes warnings (the `Warning` headers kubectl prints) rather than dropped silently. Pure.
#pragma once

#include <string>
#include <vector>

#include "kube/tfjob.h"

namespace trainyard::kube {

// One sentence per field that is accepted but acted on differently: ttlSecondsAfterFinished
// (finished TFJobs stay until deleted), cleanPodPolicy None (the other replicas are stopped when
// the job ends; their pods and logs stay readable), schedulingPolicy's minAvailable, queue,
// priorityClass, minResources (placement is always all-or-nothing, FIFO by priority 0).
std::vector<std::string> Notices(const TFJob& job);

}  // namespace trainyard::kube
