#include "kube/tfjob_scheduling.h"

#include <fmt/format.h>

namespace trainyard::kube {

std::int32_t TotalReplicas(const TFJob& job) {
  std::int32_t total = 0;
  for (const ReplicaSpec& spec : job.replica_specs) {
    total += spec.replicas;
  }
  return total;
}

std::vector<StatusCause> SchedulingPolicyCauses(const TFJob& job) {
  std::vector<StatusCause> out;
  if (!job.run_policy.scheduling_policy.has_value()) {
    return out;
  }
  const SchedulingPolicy& policy = *job.run_policy.scheduling_policy;
  const std::string at = "spec.runPolicy.schedulingPolicy";
  const std::string& namespace_name = job.metadata.namespace_name;
  if (!policy.queue.empty() && policy.queue != namespace_name) {
    out.push_back(InvalidCause(
        at + ".queue", policy.queue,
        fmt::format("a queue is a project's quota and a TFJob runs in its namespace's project: "
                    "the queue must be \"{}\" (or unset)",
                    namespace_name)));
  }
  if (policy.min_available.has_value() && *policy.min_available >= 0) {
    const std::int32_t total = TotalReplicas(job);
    const std::int32_t asked = *policy.min_available;
    if (asked < total) {
      out.push_back(InvalidNumberCause(
          at + ".minAvailable", asked,
          fmt::format("trainyard starts all {} replicas together or none (a gang of all of "
                      "them): minAvailable must be {} (or unset); fewer would start the job with "
                      "replicas still pending, which trainyard does not do",
                      total, total)));
    } else if (asked > total) {
      out.push_back(InvalidNumberCause(
          at + ".minAvailable", asked,
          fmt::format("must be at most the replicas' total, {}: more pods than the job has "
                      "could never be available",
                      total)));
    }
  }
  return out;
}

std::optional<KubeError> PriorityClassRefusal(
    const TFJob& job, const std::map<std::string, int, std::less<>>& classes) {
  if (!job.run_policy.scheduling_policy.has_value()) {
    return std::nullopt;
  }
  const std::string& name = job.run_policy.scheduling_policy->priority_class;
  if (name.empty() || classes.contains(name)) {
    return std::nullopt;
  }
  KubeError error =
      Forbidden(fmt::format("tfjobs.kubeflow.org \"{}\" is forbidden: no PriorityClass with name "
                            "{} was found",
                            job.metadata.name, name));
  error.name = job.metadata.name;
  error.group = "kubeflow.org";
  error.kind = "tfjobs";
  return error;
}

}  // namespace trainyard::kube
