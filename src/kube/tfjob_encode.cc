// TFJob -> JSON, as the API answers a GET: the operator's defaults filled in
// (docs/reference/kubeflow-tfjob.md §2.2, §2.3).
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "kube/decode_internal.h"
#include "kube/tfjob_decode.h"

namespace trainyard::kube {
namespace {

using nlohmann::ordered_json;

ordered_json Metadata(const ObjectMeta& meta) {
  ordered_json out = ordered_json::object();
  out["name"] = meta.name;
  if (!meta.namespace_name.empty()) {
    out["namespace"] = meta.namespace_name;
  }
  if (!meta.uid.empty()) {
    out["uid"] = meta.uid;
  }
  if (!meta.resource_version.empty()) {
    out["resourceVersion"] = meta.resource_version;
  }
  if (meta.generation > 0) {
    out["generation"] = meta.generation;
  }
  if (meta.creation_timestamp.has_value()) {
    out["creationTimestamp"] = FormatTimestamp(*meta.creation_timestamp);
  }
  if (meta.deletion_timestamp.has_value()) {
    out["deletionTimestamp"] = FormatTimestamp(*meta.deletion_timestamp);
  }
  if (!meta.labels.empty()) {
    out["labels"] = meta.labels;
  }
  if (!meta.annotations.empty()) {
    out["annotations"] = meta.annotations;
  }
  return out;
}

ordered_json ContainerJson(const Container& container) {
  ordered_json out = {{"name", container.name}, {"image", container.image}};
  if (!container.command.empty()) {
    out["command"] = container.command;
  }
  if (!container.args.empty()) {
    out["args"] = container.args;
  }
  if (!container.working_dir.empty()) {
    out["workingDir"] = container.working_dir;
  }
  std::vector<ContainerPort> ports = container.ports;
  if (container.name == kContainerName &&
      std::ranges::none_of(ports, [](const ContainerPort& p) { return p.name == kPortName; })) {
    ports.push_back(ContainerPort{std::string(kPortName), kDefaultPort});  // the defaulter's
  }
  if (!ports.empty()) {
    ordered_json list = ordered_json::array();
    for (const ContainerPort& port : ports) {
      ordered_json item = ordered_json::object();
      if (!port.name.empty()) {
        item["name"] = port.name;
      }
      item["containerPort"] = port.container_port;
      list.push_back(std::move(item));
    }
    out["ports"] = std::move(list);
  }
  if (!container.env.empty()) {
    ordered_json env = ordered_json::array();
    for (const EnvVar& var : container.env) {
      env.push_back({{"name", var.name}, {"value", var.value}});
    }
    out["env"] = std::move(env);
  }
  ordered_json resources = ordered_json::object();
  if (!container.limits.empty()) {
    resources["limits"] = container.limits;
  }
  if (!container.requests.empty()) {
    resources["requests"] = container.requests;
  }
  out["resources"] = std::move(resources);
  if (!container.image_pull_policy.empty()) {
    out["imagePullPolicy"] = container.image_pull_policy;
  }
  if (!container.termination_message_policy.empty()) {
    out["terminationMessagePolicy"] = container.termination_message_policy;
  }
  return out;
}

ordered_json ReplicaSpecJson(const ReplicaSpec& spec) {
  const PodTemplate& pod = spec.template_;
  ordered_json metadata = {{"creationTimestamp", nullptr}};
  if (!pod.labels.empty()) {
    metadata["labels"] = pod.labels;
  }
  if (!pod.annotations.empty()) {
    metadata["annotations"] = pod.annotations;
  }
  ordered_json containers = ordered_json::array();
  for (const Container& container : pod.containers) {
    containers.push_back(ContainerJson(container));
  }
  ordered_json pod_spec = {{"containers", std::move(containers)}};
  if (!pod.node_selector.empty()) {
    pod_spec["nodeSelector"] = pod.node_selector;
  }
  if (!pod.service_account_name.empty()) {
    pod_spec["serviceAccountName"] = pod.service_account_name;
  }
  if (!pod.restart_policy.empty()) {
    pod_spec["restartPolicy"] = pod.restart_policy;
  }
  return {{"replicas", spec.replicas},
          {"restartPolicy", spec.restart_policy},
          {"template", {{"metadata", std::move(metadata)}, {"spec", std::move(pod_spec)}}}};
}

// The run-policy fields into `out`: runPolicy (v1) or spec itself (v1beta2,
// docs/reference/kubeflow-tfjob.md §2.4).
void RunPolicyJson(const RunPolicy& policy, bool v1beta2, ordered_json& out) {
  out["cleanPodPolicy"] = policy.clean_pod_policy.value_or(v1beta2 ? "Running" : "None");
  if (policy.ttl_seconds_after_finished.has_value()) {
    out["ttlSecondsAfterFinished"] = *policy.ttl_seconds_after_finished;
  }
  if (policy.active_deadline_seconds.has_value()) {
    out["activeDeadlineSeconds"] = *policy.active_deadline_seconds;
  }
  if (policy.backoff_limit.has_value()) {
    out["backoffLimit"] = *policy.backoff_limit;
  }
  if (v1beta2) {
    return;  // v1beta2 has no suspend, scheduling policy or managedBy
  }
  if (policy.scheduling_policy.has_value()) {
    const SchedulingPolicy& scheduling = *policy.scheduling_policy;
    ordered_json block = ordered_json::object();
    if (scheduling.min_available.has_value()) {
      block["minAvailable"] = *scheduling.min_available;
    }
    if (!scheduling.queue.empty()) {
      block["queue"] = scheduling.queue;
    }
    if (!scheduling.priority_class.empty()) {
      block["priorityClass"] = scheduling.priority_class;
    }
    if (!scheduling.min_resources.empty()) {
      block["minResources"] = scheduling.min_resources;
    }
    if (scheduling.schedule_timeout_seconds.has_value()) {
      block["scheduleTimeoutSeconds"] = *scheduling.schedule_timeout_seconds;
    }
    out["schedulingPolicy"] = std::move(block);
  }
  out["suspend"] = policy.suspend;
  if (policy.managed_by.has_value()) {
    out["managedBy"] = *policy.managed_by;
  }
}

}  // namespace

std::string EncodeTFJob(const TFJob& job, const TFJobStatus* status) {
  const bool v1beta2 = job.api_version == kApiVersionV1Beta2;
  ordered_json spec = ordered_json::object();
  if (v1beta2) {
    RunPolicyJson(job.run_policy, true, spec);
  } else {
    ordered_json run_policy = ordered_json::object();
    RunPolicyJson(job.run_policy, false, run_policy);
    spec["runPolicy"] = std::move(run_policy);
    spec["successPolicy"] = job.success_policy;
    if (job.enable_dynamic_worker) {
      spec["enableDynamicWorker"] = true;
    }
  }
  ordered_json specs = ordered_json::object();
  for (const ReplicaSpec& replica : job.replica_specs) {
    specs[replica.type] = ReplicaSpecJson(replica);
  }
  spec["tfReplicaSpecs"] = std::move(specs);
  ordered_json out = {{"apiVersion", job.api_version},
                      {"kind", kTFJobKind},
                      {"metadata", Metadata(job.metadata)},
                      {"spec", std::move(spec)}};
  if (status != nullptr) {
    out["status"] = internal::StatusJson(*status);
  }
  return out.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace trainyard::kube
