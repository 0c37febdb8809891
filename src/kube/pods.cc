// Each replica of a TFJob's job as the pod the operator would have made
// (docs/reference/kubeflow-tfjob.md §4.1), for `kubectl get pods` and `kubectl describe`.
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "kube/tfjob_mapping.h"
#include "kube/tfjob_status.h"

namespace trainyard::kube {
namespace {

using nlohmann::ordered_json;

constexpr std::string_view kLabelPrefix = "training.kubeflow.org/";
// Shown for a replica whose exit status is unknown.
constexpr int kUnknownExitCode = 255;

// The image of the role a Kubeflow type runs as.
std::string ImageOf(const model::Job& job, const KubeReplica& replica,
                    const model::KubeflowNaming& naming) {
  if (!job.training_input.has_value()) {
    return "";
  }
  const model::TrainingInput& input = *job.training_input;
  const std::optional<std::string> task = TaskNameOf(replica, naming);
  const auto image = [&](const std::optional<model::ReplicaConfig>& config) {
    return config.has_value() && !config->image_uri.empty()
               ? config->image_uri
               : (input.master_config ? input.master_config->image_uri : "");
  };
  if (!task.has_value() || task->starts_with("master")) {
    return image(input.master_config);
  }
  if (task->starts_with("worker")) {
    return image(input.worker_config);
  }
  if (task->starts_with("ps")) {
    return image(input.parameter_server_config);
  }
  return image(input.evaluator_config);
}

// A container that has started has a start time whatever the view knows: the replica's, else
// its job's (the replica of an ended job read back from its exit file). kubectl parses the
// times of a running or terminated container, and "" is no time (issue #36).
void SetState(Pod& pod, const ReplicaView& view, const model::Job& job) {
  const model::JobState job_state = job.state;
  pod.restart_count = view.restarts;
  pod.started_at = view.state == ReplicaState::kPending || view.started_at.has_value()
                       ? view.started_at
                       : job.start_time;
  switch (view.state) {
    case ReplicaState::kPending:
      pod.phase = "Pending";
      // A queued job's pods are unscheduled (no container yet); a placed one's are starting.
      if (job_state != model::JobState::kQueued) {
        pod.container_state = "waiting";
        pod.reason = "ContainerCreating";
      }
      break;
    case ReplicaState::kRunning:
      pod.phase = "Running";
      pod.container_state = "running";
      pod.ready = true;
      break;
    case ReplicaState::kRestarting:
      // As kubelet shows a container it restarts in place.
      pod.phase = "Running";
      pod.container_state = "waiting";
      pod.reason = "CrashLoopBackOff";
      pod.exit_code = view.exit_code;
      pod.finished_at = view.finished_at;
      break;
    case ReplicaState::kExited:
      pod.exit_code = view.exit_code.value_or(kUnknownExitCode);
      pod.phase = pod.exit_code == 0 ? "Succeeded" : "Failed";
      pod.container_state = "terminated";
      pod.reason = pod.exit_code == 0 ? "Completed" : (view.exit_code ? "Error" : "Unknown");
      pod.finished_at = view.finished_at.has_value() ? view.finished_at : job.end_time;
      break;
  }
}

// A time as Kubernetes writes a metav1.Time: RFC 3339, null when unset (never "").
ordered_json TimeOrNull(const std::optional<WallTime>& time) {
  return time.has_value() ? ordered_json(FormatTimestamp(*time)) : ordered_json();
}

ordered_json Terminated(const Pod& pod, std::string_view reason) {
  return {{"exitCode", pod.exit_code.value_or(0)},
          {"reason", reason},
          {"startedAt", TimeOrNull(pod.started_at)},
          {"finishedAt", TimeOrNull(pod.finished_at)}};
}

ordered_json ContainerState(const Pod& pod) {
  if (pod.container_state == "running") {
    return {{"running", {{"startedAt", TimeOrNull(pod.started_at)}}}};
  }
  if (pod.container_state == "terminated") {
    return {{"terminated", Terminated(pod, pod.reason)}};
  }
  return {{"waiting", {{"reason", pod.reason}}}};
}

}  // namespace

std::vector<Pod> PodsOf(const model::Job& job, const std::vector<ReplicaView>& replicas,
                        std::string_view node_name) {
  std::vector<Pod> pods;
  if (model::IsSuspended(job) && !model::IsTerminal(job.state)) {
    return pods;  // suspension deletes the pods (docs/reference/kubeflow-tfjob.md §2.3)
  }
  const model::KubeflowNaming naming = KubeflowNamingOf(job);
  const std::string primary = PrimaryType(naming);
  for (const TypeCount& count : ReplicaCountsOf(job)) {
    for (int index = 0; index < count.replicas; ++index) {
      const KubeReplica replica{count.type, index};
      const std::optional<std::string> task = TaskNameOf(replica, naming);
      const ReplicaView* view = nullptr;
      for (const ReplicaView& candidate : replicas) {
        if (task.has_value() && candidate.task_name == *task) {
          view = &candidate;
        }
      }
      if (view == nullptr && model::IsTerminal(job.state)) {
        continue;  // never started, and now it never will
      }
      Pod pod;
      pod.name = PodName(naming.job_name, count.type, index);
      pod.namespace_name = naming.namespace_name;
      pod.replica_type = count.type;
      pod.replica_index = index;
      pod.task_name = task.value_or("");
      const std::string prefix(kLabelPrefix);
      pod.labels = {{prefix + "operator-name", "tfjob-controller"},
                    {prefix + "job-name", naming.job_name},
                    {prefix + "replica-type", LowerType(count.type)},
                    {prefix + "replica-index", std::to_string(index)}};
      if (count.type == primary && index == 0) {
        pod.labels[prefix + "job-role"] = "master";
      }
      pod.image = ImageOf(job, replica, naming);
      pod.node_name =
          view != nullptr && view->state != ReplicaState::kPending ? std::string(node_name) : "";
      pod.creation_timestamp = job.start_time.has_value() ? job.start_time : job.create_time;
      SetState(pod, view != nullptr ? *view : ReplicaView{.task_name = pod.task_name}, job);
      if (job.extras && job.extras->kube) {
        pod.owner_api_version = job.extras->kube->api_version;
        pod.owner_name = job.extras->kube->name;
        pod.owner_uid = job.extras->kube->uid;
      }
      pods.push_back(std::move(pod));
    }
  }
  return pods;
}

std::string EncodePod(const Pod& pod) {
  ordered_json metadata = {
      {"name", pod.name}, {"namespace", pod.namespace_name}, {"labels", pod.labels}};
  if (pod.creation_timestamp.has_value()) {
    metadata["creationTimestamp"] = FormatTimestamp(*pod.creation_timestamp);
  }
  if (!pod.owner_name.empty()) {
    metadata["ownerReferences"] = ordered_json::array({{{"apiVersion", pod.owner_api_version},
                                                        {"kind", kTFJobKind},
                                                        {"name", pod.owner_name},
                                                        {"uid", pod.owner_uid},
                                                        {"controller", true},
                                                        {"blockOwnerDeletion", true}}});
  }
  ordered_json spec = {
      {"containers", ordered_json::array({{{"name", kContainerName}, {"image", pod.image}}})}};
  if (!pod.node_name.empty()) {
    spec["nodeName"] = pod.node_name;
  }
  ordered_json status = {{"phase", pod.phase}};
  if (pod.started_at.has_value()) {
    status["startTime"] = FormatTimestamp(*pod.started_at);
  }
  if (!pod.container_state.empty()) {
    // The core/v1 ContainerStatus: name, image, imageID, ready and restartCount are required
    // (the Python client refuses a pod without them); containerID once a container was made.
    ordered_json container = {{"name", kContainerName},
                              {"image", pod.image},
                              {"imageID", ""},
                              {"ready", pod.ready},
                              {"restartCount", pod.restart_count},
                              {"started", pod.ready},
                              {"state", ContainerState(pod)},
                              {"lastState", ordered_json::object()}};
    if (pod.container_state == "waiting" && pod.exit_code.has_value()) {
      container["lastState"] = {{"terminated", Terminated(pod, "Error")}};
    }
    if (pod.started_at.has_value()) {
      container["containerID"] = fmt::format("trainyard://{}/{}", pod.namespace_name, pod.name);
    }
    status["containerStatuses"] = ordered_json::array({std::move(container)});
  }
  const ordered_json out = {{"apiVersion", "v1"},
                            {"kind", "Pod"},
                            {"metadata", std::move(metadata)},
                            {"spec", std::move(spec)},
                            {"status", std::move(status)}};
  return out.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace trainyard::kube
