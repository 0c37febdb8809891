// The pod template of a replica spec: the core/v1 PodTemplateSpec fields trainyard honours, and
// the known ones it cannot, which become `TFJob::unsupported` with a reason.
#include <string>
#include <string_view>
#include <utility>

#include "kube/decode_internal.h"

namespace trainyard::kube::internal {
namespace {

struct Refusal {
  std::string_view field;
  std::string_view why;
};

// PodSpec fields trainyard cannot honour: a replica is a process or a podman container on a
// trainyard node, not a pod.
constexpr Refusal kPodSpecRefused[] = {
    {"volumes", "replicas read and write data through gs:// paths (the storage API)"},
    {"initContainers", "a replica runs one container"},
    {"ephemeralContainers", "a replica runs one container"},
    {"securityContext", "replicas run as the trainyard server's user"},
    {"affinity", "use nodeSelector"},
    {"tolerations", "trainyard nodes have no taints"},
    {"topologySpreadConstraints", "use nodeSelector"},
    {"nodeName", "use nodeSelector with kubernetes.io/hostname"},
    {"schedulerName", "trainyard places every job itself"},
    {"priorityClassName", "trainyard places jobs in submission order"},
    {"priority", "trainyard places jobs in submission order"},
    {"preemptionPolicy", "trainyard does not preempt"},
    {"runtimeClassName", "replicas run under podman's default runtime"},
    {"hostNetwork", "replicas always use the node's network"},
    {"hostPID", "replicas have their own process namespace"},
    {"hostIPC", "replicas have their own IPC namespace"},
    {"hostUsers", "replicas run as the trainyard server's user"},
    {"shareProcessNamespace", "a replica runs one container"},
    {"imagePullSecrets", "images are pulled with the node's podman credentials"},
    {"hostAliases", "replicas resolve each other through trainyard's names"},
    {"dnsConfig", "replicas resolve each other through trainyard's names"},
    {"hostname", "replicas are named <job>-<type>-<index>"},
    {"subdomain", "replicas are named <job>-<type>-<index>"},
    {"setHostnameAsFQDN", "replicas are named <job>-<type>-<index>"},
    {"activeDeadlineSeconds", "use spec.runPolicy.activeDeadlineSeconds"},
    {"terminationGracePeriodSeconds", "replicas get the server's --stop-grace"},
    {"readinessGates", "trainyard has no readiness checks"},
    {"overhead", "trainyard does not account pod overhead"},
    {"os", "replicas run on the node's operating system"},
    {"resourceClaims", "use resources.limits with nvidia.com/gpu"},
    {"schedulingGates", "use spec.runPolicy.suspend"},
    {"resources", "give resources per container"},
};
// Harmless PodSpec fields: what they ask is what trainyard does anyway.
constexpr std::string_view kPodSpecIgnored[] = {"dnsPolicy", "enableServiceLinks",
                                                "automountServiceAccountToken"};

constexpr Refusal kContainerRefused[] = {
    {"volumeMounts", "replicas read and write data through gs:// paths (the storage API)"},
    {"volumeDevices", "GPUs are given through resources.limits nvidia.com/gpu"},
    {"envFrom", "give each variable in env with a value"},
    {"securityContext", "replicas run as the trainyard server's user"},
    {"livenessProbe", "trainyard has no probes; a replica lives until it exits"},
    {"readinessProbe", "trainyard has no probes; a replica lives until it exits"},
    {"startupProbe", "trainyard has no probes; a replica lives until it exits"},
    {"lifecycle", "trainyard runs no hooks; a replica gets SIGTERM, then SIGKILL"},
    {"stdin", "replicas have no standard input"},
    {"stdinOnce", "replicas have no standard input"},
    {"tty", "replicas have no terminal"},
    {"resizePolicy", "replicas are not resized"},
    {"restartPolicy", "use the replica spec's restartPolicy"},
};
// Harmless Container fields (trainyard's logs are the termination message).
constexpr std::string_view kContainerIgnored[] = {"terminationMessagePath"};

template <std::size_t N>
const Refusal* FindRefusal(const Refusal (&table)[N], std::string_view key) {
  for (const Refusal& refusal : table) {
    if (refusal.field == key) {
      return &refusal;
    }
  }
  return nullptr;
}

template <std::size_t N>
bool Contains(const std::string_view (&table)[N], std::string_view key) {
  for (const std::string_view entry : table) {
    if (entry == key) {
      return true;
    }
  }
  return false;
}

void DecodeEnv(Decoder& d, const json& value, const Location& at, std::vector<EnvVar>& out) {
  if (!d.Array(value, at, "Container", "[]v1.EnvVar")) {
    return;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    const Location item_at = at.Index(i);
    if (!d.Object(value[i], item_at, "Container", "v1.EnvVar")) {
      continue;
    }
    EnvVar var;
    for (const auto& [key, item] : value[i].items()) {
      const Location here = item_at.Key(key);
      if (key == "name") {
        d.String(item, here, "EnvVar", var.name);
      } else if (key == "value") {
        d.String(item, here, "EnvVar", var.value);
      } else if (key == "valueFrom") {
        var.value_from = !item.is_null();  // validation refuses it by the variable's name
      } else {
        d.Unknown(item_at, key);
      }
    }
    out.push_back(std::move(var));
  }
}

void DecodePorts(Decoder& d, const json& value, const Location& at,
                 std::vector<ContainerPort>& out) {
  if (!d.Array(value, at, "Container", "[]v1.ContainerPort")) {
    return;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    const Location item_at = at.Index(i);
    if (!d.Object(value[i], item_at, "Container", "v1.ContainerPort")) {
      continue;
    }
    ContainerPort port;
    for (const auto& [key, item] : value[i].items()) {
      const Location here = item_at.Key(key);
      if (key == "name") {
        d.String(item, here, "ContainerPort", port.name);
      } else if (key == "containerPort") {
        std::optional<std::int32_t> number;
        d.Int32(item, here, "ContainerPort", number);
        port.container_port = number.value_or(0);
      } else if (key == "hostPort" || key == "hostIP") {
        d.Unsupported(here, "replicas use the node's network; trainyard picks their ports");
      } else if (key != "protocol") {
        d.Unknown(item_at, key);
      }
    }
    out.push_back(std::move(port));
  }
}

void DecodeResources(Decoder& d, const json& value, const Location& at, Container& out) {
  if (!d.Object(value, at, "Container", "v1.ResourceRequirements")) {
    return;
  }
  for (const auto& [key, item] : value.items()) {
    const Location here = at.Key(key);
    if (key == "limits") {
      d.Quantities(item, here, "ResourceRequirements", out.limits);
    } else if (key == "requests") {
      d.Quantities(item, here, "ResourceRequirements", out.requests);
    } else if (key == "claims") {
      d.Unsupported(here, "use resources.limits with nvidia.com/gpu");
    } else {
      d.Unknown(at, key);
    }
  }
}

void DecodeContainer(Decoder& d, const json& value, const Location& at, Container& out) {
  if (!d.Object(value, at, "PodSpec", "v1.Container")) {
    return;
  }
  for (const auto& [key, item] : value.items()) {
    const Location here = at.Key(key);
    if (key == "name") {
      d.String(item, here, "Container", out.name);
    } else if (key == "image") {
      d.String(item, here, "Container", out.image);
    } else if (key == "command") {
      d.Strings(item, here, "Container", out.command);
    } else if (key == "args") {
      d.Strings(item, here, "Container", out.args);
    } else if (key == "env") {
      DecodeEnv(d, item, here, out.env);
    } else if (key == "workingDir") {
      d.String(item, here, "Container", out.working_dir);
    } else if (key == "ports") {
      DecodePorts(d, item, here, out.ports);
    } else if (key == "resources") {
      DecodeResources(d, item, here, out);
    } else if (key == "imagePullPolicy") {
      d.String(item, here, "Container", out.image_pull_policy);
    } else if (key == "terminationMessagePolicy") {
      d.String(item, here, "Container", out.termination_message_policy);
    } else if (const Refusal* refusal = FindRefusal(kContainerRefused, key)) {
      d.Unsupported(here, refusal->why);
    } else if (!Contains(kContainerIgnored, key)) {
      d.Unknown(at, key);
    }
  }
}

void DecodePodSpec(Decoder& d, const json& value, const Location& at, PodTemplate& out) {
  if (!d.Object(value, at, "PodTemplateSpec", "v1.PodSpec")) {
    return;
  }
  for (const auto& [key, item] : value.items()) {
    const Location here = at.Key(key);
    if (key == "containers") {
      if (!d.Array(item, here, "PodSpec", "[]v1.Container")) {
        continue;
      }
      for (std::size_t i = 0; i < item.size(); ++i) {
        Container container;
        DecodeContainer(d, item[i], here.Index(i), container);
        out.containers.push_back(std::move(container));
      }
    } else if (key == "nodeSelector") {
      d.Map(item, here, "PodSpec", out.node_selector);
    } else if (key == "serviceAccountName" || key == "serviceAccount") {
      // serviceAccount is the deprecated alias; replicas have no Kubernetes identity anyway.
      if (out.service_account_name.empty()) {
        d.String(item, here, "PodSpec", out.service_account_name);
      }
    } else if (key == "restartPolicy") {
      d.String(item, here, "PodSpec", out.restart_policy);
    } else if (const Refusal* refusal = FindRefusal(kPodSpecRefused, key)) {
      d.Unsupported(here, refusal->why);
    } else if (!Contains(kPodSpecIgnored, key)) {
      // The seed's pod-level imagePullPolicy (docs/reference/kubeflow-tfjob.md §9).
      d.Unknown(at, key);
    }
  }
}

// The template's metadata: labels and annotations are kept (they label the pods); the rest of
// ObjectMeta (name, creationTimestamp: null, …) the operator overwrites, so it is ignored.
void DecodeTemplateMetadata(Decoder& d, const json& value, const Location& at, PodTemplate& out) {
  if (!d.Object(value, at, "PodTemplateSpec", "v1.ObjectMeta")) {
    return;
  }
  for (const auto& [key, item] : value.items()) {
    const Location here = at.Key(key);
    if (key == "labels") {
      d.Map(item, here, "ObjectMeta", out.labels);
    } else if (key == "annotations") {
      d.Map(item, here, "ObjectMeta", out.annotations);
    } else if (key == "creationTimestamp") {
      std::optional<WallTime> ignored;
      d.Time(item, here, "ObjectMeta", ignored);
    } else if (key != "name" && key != "namespace" && key != "generateName" && key != "uid") {
      d.Unknown(at, key);
    }
  }
}

}  // namespace

void DecodeTemplate(Decoder& d, const json& value, const Location& at, PodTemplate& out) {
  if (!d.Object(value, at, "ReplicaSpec", "v1.PodTemplateSpec")) {
    return;
  }
  for (const auto& [key, item] : value.items()) {
    const Location here = at.Key(key);
    if (key == "metadata") {
      DecodeTemplateMetadata(d, item, here, out);
    } else if (key == "spec") {
      DecodePodSpec(d, item, here, out);
    } else {
      d.Unknown(at, key);
    }
  }
}

}  // namespace trainyard::kube::internal
