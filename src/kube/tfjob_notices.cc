#include "kube/tfjob_notices.h"

namespace trainyard::kube {

std::vector<std::string> Notices(const TFJob& job) {
  std::vector<std::string> notices;
  const RunPolicy& policy = job.run_policy;
  if (policy.ttl_seconds_after_finished.has_value()) {
    notices.emplace_back(
        "spec.runPolicy.ttlSecondsAfterFinished is not acted on: a finished TFJob stays (with "
        "its pods' logs) until it is deleted");
  }
  if (policy.clean_pod_policy == "None") {
    notices.emplace_back(
        "spec.runPolicy.cleanPodPolicy None: trainyard stops the other replicas when the job "
        "ends, as Running does; their pods and logs stay readable until the TFJob is deleted");
  }
  // queue, minAvailable and priorityClass are honoured (tfjob_scheduling.h).
  if (policy.scheduling_policy.has_value() && !policy.scheduling_policy->min_resources.empty()) {
    notices.emplace_back(
        "spec.runPolicy.schedulingPolicy.minResources is not used: trainyard reserves what each "
        "replica asks for (its machine type and accelerators), all replicas together");
  }
  return notices;
}

}  // namespace trainyard::kube
