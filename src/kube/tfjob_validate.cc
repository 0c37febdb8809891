#include "kube/tfjob_validate.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "kube/tfjob_scheduling.h"

namespace trainyard::kube {
namespace {

using Causes = std::vector<StatusCause>;

constexpr std::string_view kNotSupported = "not supported by trainyard";
// apimachinery's messages for the name rules.
constexpr std::string_view kDns1035Message =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
constexpr std::string_view kDns1123Message =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr std::string_view kQualifiedNameMessage =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), with an optional DNS subdomain "
    "prefix and '/' (e.g. 'example.com/MyName')";
constexpr std::string_view kLabelValueMessage =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
constexpr std::string_view kQuantityMessage =
    "must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

// Enum values, sorted as Kubernetes lists them in "supported values".
const std::vector<std::string_view> kRestartPolicies = {"Always", "ExitCode", "Never", "OnFailure"};
const std::vector<std::string_view> kPodRestartPolicies = {"Always", "Never", "OnFailure"};
const std::vector<std::string_view> kCleanPodPolicies = {"All", "None", "Running"};
const std::vector<std::string_view> kSuccessPolicies = {"", "AllWorkers"};
const std::vector<std::string_view> kPullPolicies = {"Always", "IfNotPresent", "Never"};
const std::vector<std::string_view> kReplicaTypeNames = {"Chief", "Evaluator", "Master", "PS",
                                                         "Worker"};
constexpr std::string_view kManagedByOperator = "kubeflow.org/training-operator";
constexpr std::string_view kManagedByMultiKueue = "kueue.x-k8s.io/multikueue";
// Resources a replica may ask for: CPU and memory size its slot, GPUs are devices.
constexpr std::string_view kResources[] = {"cpu", "memory", "ephemeral-storage", kGpuResource};

// trainyard runs a TFJob as a job in the project of the namespace's name. control/'s project-id
// rule (resource_names.cc: 1–100 letters, digits, '-', '_', '.', ':', starting with a letter or
// digit) accepts every RFC 1123 label, so the Kubernetes rule for namespaces is the whole rule.
void CheckNamespace(const ObjectMeta& meta, Causes& out) {
  if (!meta.namespace_name.empty() && !IsDns1123Label(meta.namespace_name)) {
    out.push_back(InvalidCause("metadata.namespace", meta.namespace_name, kDns1123Message));
  }
}

void CheckLabels(const StringMap& labels, const std::string& field, Causes& out) {
  for (const auto& [key, value] : labels) {
    if (!IsQualifiedName(key)) {
      out.push_back(InvalidCause(field, key, kQualifiedNameMessage));
    }
    if (!IsLabelValue(value)) {
      out.push_back(InvalidCause(fmt::format("{}[{}]", field, key), value, kLabelValueMessage));
    }
  }
}

// apimachinery's ValidateAnnotations: keys are qualified names in any case, and keys and values
// together take at most 256 KiB (TotalAnnotationSizeLimitB).
void CheckAnnotations(const StringMap& annotations, const std::string& field, Causes& out) {
  constexpr std::size_t kMaxTotalBytes = std::size_t{256} << 10;
  std::size_t total = 0;
  for (const auto& [key, value] : annotations) {
    std::string lower = key;
    std::ranges::transform(lower, lower.begin(), [](unsigned char c) {
      return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    });
    if (!IsQualifiedName(lower)) {
      out.push_back(InvalidCause(field, key, kQualifiedNameMessage));
    }
    total += key.size() + value.size();
  }
  if (total > kMaxTotalBytes) {
    out.push_back(TooLongCause(field, kMaxTotalBytes));
  }
}

void CheckMetadata(const ObjectMeta& meta, Causes& out) {
  if (meta.name.empty()) {
    out.push_back(RequiredCause("metadata.name", "name or generateName is required"));
  } else if (meta.name.size() > 63) {
    out.push_back(InvalidCause("metadata.name", meta.name, "must be no more than 63 characters"));
  } else if (!IsDns1035Label(meta.name)) {
    // The webhook's rule (docs/reference/kubeflow-tfjob.md §7): pod and service names are built
    // from it.
    out.push_back(InvalidCause("metadata.name", meta.name, kDns1035Message));
  }
  CheckNamespace(meta, out);
  CheckLabels(meta.labels, "metadata.labels", out);
  CheckAnnotations(meta.annotations, "metadata.annotations", out);
}

bool IsSupported(const std::vector<std::string_view>& values, std::string_view value) {
  return std::ranges::find(values, value) != values.end();
}

void CheckNonNegative(const std::optional<std::int64_t>& value, const std::string& field,
                      Causes& out) {
  if (value.has_value() && *value < 0) {
    out.push_back(InvalidNumberCause(field, *value, "must be greater than or equal to 0"));
  }
}

void CheckRunPolicy(const TFJob& job, const TFJob* old, Causes& out) {
  const RunPolicy& policy = job.run_policy;
  // v1beta2 keeps these fields in spec itself (docs/reference/kubeflow-tfjob.md §2.4).
  const std::string at = job.api_version == kApiVersionV1Beta2 ? "spec" : "spec.runPolicy";
  if (policy.clean_pod_policy.has_value() &&
      !IsSupported(kCleanPodPolicies, *policy.clean_pod_policy)) {
    out.push_back(
        NotSupportedCause(at + ".cleanPodPolicy", *policy.clean_pod_policy, kCleanPodPolicies));
  }
  CheckNonNegative(policy.ttl_seconds_after_finished, at + ".ttlSecondsAfterFinished", out);
  CheckNonNegative(policy.active_deadline_seconds, at + ".activeDeadlineSeconds", out);
  CheckNonNegative(policy.backoff_limit, at + ".backoffLimit", out);
  if (policy.scheduling_policy.has_value()) {
    const SchedulingPolicy& scheduling = *policy.scheduling_policy;
    const std::string path = at + ".schedulingPolicy";
    CheckNonNegative(scheduling.min_available, path + ".minAvailable", out);
    CheckNonNegative(scheduling.schedule_timeout_seconds, path + ".scheduleTimeoutSeconds", out);
    for (const auto& [resource, quantity] : scheduling.min_resources) {
      if (!IsQuantity(quantity)) {
        out.push_back(InvalidCause(fmt::format("{}.minResources[{}]", path, resource), quantity,
                                   kQuantityMessage));
      }
    }
  }
  // queue and minAvailable, as trainyard honours them (tfjob_scheduling.h).
  for (StatusCause& cause : SchedulingPolicyCauses(job)) {
    out.push_back(std::move(cause));
  }
  // The CRD's rule `self == oldSelf` on the queue.
  const auto queue = [](const TFJob& j) {
    return j.run_policy.scheduling_policy ? j.run_policy.scheduling_policy->queue : "";
  };
  if (old != nullptr && queue(job) != queue(*old)) {
    out.push_back(InvalidCause(at + ".schedulingPolicy.queue", queue(job), "field is immutable"));
  }
  if (policy.managed_by.has_value()) {
    const std::string& by = *policy.managed_by;
    if (by == kManagedByMultiKueue) {
      out.push_back(ForbiddenCause(
          at + ".managedBy",
          fmt::format("{}: trainyard runs every TFJob it accepts; it does not hand jobs to "
                      "MultiKueue",
                      kNotSupported)));
    } else if (by != kManagedByOperator && !by.empty()) {
      out.push_back(
          NotSupportedCause(at + ".managedBy", by, {kManagedByOperator, kManagedByMultiKueue}));
    }
  }
  if (old != nullptr && policy.managed_by.value_or("") != old->run_policy.managed_by.value_or("")) {
    out.push_back(
        InvalidCause(at + ".managedBy", policy.managed_by.value_or(""), "field is immutable"));
  }
}

// docs/reference/kubeflow-tfjob.md §8: whole GPUs as limits; a request must equal its limit and
// never stand alone.
void CheckResources(const Container& container, const std::string& at, Causes& out) {
  for (const auto* list : {&container.limits, &container.requests}) {
    const std::string field = at + (list == &container.limits ? ".limits" : ".requests");
    for (const auto& [resource, quantity] : *list) {
      const std::string here = fmt::format("{}[{}]", field, resource);
      if (std::ranges::find(kResources, resource) == std::end(kResources)) {
        out.push_back(ForbiddenCause(
            here, fmt::format("{}: a replica may ask for cpu, memory and nvidia.com/gpu",
                              kNotSupported)));
      } else if (!IsQuantity(quantity)) {
        out.push_back(InvalidCause(here, quantity, kQuantityMessage));
      }
    }
  }
  const auto limit = container.limits.find(std::string(kGpuResource));
  const auto request = container.requests.find(std::string(kGpuResource));
  if (limit != container.limits.end()) {
    std::int64_t count = -1;
    const std::string& text = limit->second;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
    if (error != std::errc() || end != text.data() + text.size() || count < 0) {
      out.push_back(InvalidCause(fmt::format("{}.limits[{}]", at, kGpuResource), text,
                                 "must be a whole, non-negative number of GPUs"));
    }
  }
  if (request != container.requests.end()) {
    const std::string field = fmt::format("{}.requests[{}]", at, kGpuResource);
    if (limit == container.limits.end()) {
      out.push_back(RequiredCause(fmt::format("{}.limits[{}]", at, kGpuResource),
                                  "Limit must be set for non overcommitable resources"));
    } else if (request->second != limit->second) {
      out.push_back(InvalidCause(
          field, request->second,
          fmt::format("must be equal to {} limit of {}", kGpuResource, limit->second)));
    }
  }
}

bool IsEnvName(std::string_view name) {
  const auto allowed = [](char c, bool first) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    return letter || c == '-' || c == '.' || c == '_' || (!first && c >= '0' && c <= '9');
  };
  return !name.empty() && allowed(name.front(), true) &&
         std::ranges::all_of(name.substr(1), [&](char c) { return allowed(c, false); });
}

void CheckContainer(const Container& container, const std::string& at, Causes& out) {
  if (container.name.empty()) {
    out.push_back(RequiredCause(at + ".name"));
  }
  if (container.image.empty()) {
    out.push_back(RequiredCause(at + ".image", "must be required"));
  }
  for (std::size_t i = 0; i < container.env.size(); ++i) {
    const EnvVar& var = container.env[i];
    const std::string here = fmt::format("{}.env[{}]", at, i);
    if (!IsEnvName(var.name)) {
      out.push_back(InvalidCause(
          here + ".name", var.name,
          "a valid environment variable name must consist of alphabetic characters, digits, "
          "'_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or "
          "'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is "
          "'[-._a-zA-Z][-._a-zA-Z0-9]*')"));
    }
    if (var.value_from) {
      out.push_back(ForbiddenCause(
          here + ".valueFrom",
          fmt::format("{}: give the variable a value (trainyard has no secrets or config maps)",
                      kNotSupported)));
    }
  }
  for (std::size_t i = 0; i < container.ports.size(); ++i) {
    const std::int32_t port = container.ports[i].container_port;
    if (port < 1 || port > 65535) {
      out.push_back(InvalidNumberCause(fmt::format("{}.ports[{}].containerPort", at, i), port,
                                       "must be between 1 and 65535, inclusive"));
    }
  }
  if (!container.image_pull_policy.empty() &&
      !IsSupported(kPullPolicies, container.image_pull_policy)) {
    out.push_back(
        NotSupportedCause(at + ".imagePullPolicy", container.image_pull_policy, kPullPolicies));
  }
  CheckResources(container, at + ".resources", out);
}

void CheckReplicaSpec(const ReplicaSpec& spec, Causes& out) {
  const std::string at = fmt::format("spec.tfReplicaSpecs[{}]", spec.type);
  const bool chief = spec.type == kChief || spec.type == kMaster;
  if (spec.replicas < 0) {
    out.push_back(
        InvalidNumberCause(at + ".replicas", spec.replicas, "must be greater than or equal to 0"));
  } else if (chief && spec.replicas != 1) {
    // The older CRDs' bounds (docs/reference/kubeflow-tfjob.md §2.1): the chief is one replica, the
    // job's outcome.
    out.push_back(InvalidNumberCause(at + ".replicas", spec.replicas,
                                     fmt::format("a TFJob has exactly one {}", spec.type)));
  }
  if (!IsSupported(kRestartPolicies, spec.restart_policy)) {
    out.push_back(NotSupportedCause(at + ".restartPolicy", spec.restart_policy, kRestartPolicies));
  }
  const PodTemplate& pod = spec.template_;
  CheckLabels(pod.labels, at + ".template.metadata.labels", out);
  CheckAnnotations(pod.annotations, at + ".template.metadata.annotations", out);
  const std::string pod_at = at + ".template.spec";
  if (!pod.restart_policy.empty() && !IsSupported(kPodRestartPolicies, pod.restart_policy)) {
    out.push_back(
        NotSupportedCause(pod_at + ".restartPolicy", pod.restart_policy, kPodRestartPolicies));
  }
  CheckLabels(pod.node_selector, pod_at + ".nodeSelector", out);
  if (pod.containers.empty()) {
    out.push_back(RequiredCause(pod_at + ".containers", "must be specified"));
    return;
  }
  for (std::size_t i = 0; i < pod.containers.size(); ++i) {
    const std::string here = fmt::format("{}.containers[{}]", pod_at, i);
    CheckContainer(pod.containers[i], here, out);
    if (pod.containers[i].name != kContainerName && !pod.containers[i].name.empty()) {
      out.push_back(
          ForbiddenCause(here, fmt::format("{}: a replica runs one container, the one named \"{}\"",
                                           kNotSupported, kContainerName)));
    }
  }
  if (std::ranges::none_of(pod.containers,
                           [](const Container& c) { return c.name == kContainerName; })) {
    out.push_back(RequiredCause(
        pod_at + ".containers",
        fmt::format("There is no container named {} in {}", kContainerName, spec.type)));
  }
}

void CheckReplicaSpecs(const TFJob& job, Causes& out) {
  const std::string at = "spec.tfReplicaSpecs";
  if (job.replica_specs.empty()) {
    out.push_back(RequiredCause(at, "must be required"));
    return;
  }
  for (std::size_t i = 0; i < job.replica_specs.size(); ++i) {
    const ReplicaSpec& spec = job.replica_specs[i];
    if (!IsSupported(kReplicaTypeNames, spec.type)) {
      out.push_back(NotSupportedCause(at, spec.type, kReplicaTypeNames));
      continue;
    }
    if (i > 0 && job.replica_specs[i - 1].type == spec.type) {
      // "ps" and "PS" both given: the operator's defaulter would keep one at random.
      out.push_back(DuplicateCause(at, spec.type));
      continue;
    }
    CheckReplicaSpec(spec, out);
  }
  const bool chief = job.Find(kChief) != nullptr;
  const bool master = job.Find(kMaster) != nullptr;
  if (chief && master) {
    out.push_back(ForbiddenCause(at, "must not have more than 1 Chief or Master role"));
  }
  const ReplicaSpec* worker = job.Find(kWorker);
  if (!chief && !master && (worker == nullptr || worker->replicas < 1)) {
    out.push_back(RequiredCause(
        at + "[Worker]",
        "a TFJob without a Chief or Master needs at least one Worker: worker 0 decides the "
        "job's outcome"));
  }
}

void CheckSpec(const TFJob& job, const TFJob* old, Causes& out) {
  CheckRunPolicy(job, old, out);
  if (!IsSupported(kSuccessPolicies, job.success_policy)) {
    out.push_back(NotSupportedCause("spec.successPolicy", job.success_policy, kSuccessPolicies));
  }
  if (job.enable_dynamic_worker) {
    out.push_back(ForbiddenCause(
        "spec.enableDynamicWorker",
        fmt::format("{}: trainyard runs a fixed set of workers, and a worker's failure "
                    "follows its restartPolicy",
                    kNotSupported)));
  }
  CheckReplicaSpecs(job, out);
}

}  // namespace

std::vector<StatusCause> ValidateTFJob(const TFJob& job, const TFJob* old) {
  Causes out;
  CheckMetadata(job.metadata, out);
  CheckSpec(job, old, out);
  for (const UnsupportedField& field : job.unsupported) {
    out.push_back(ForbiddenCause(field.field, fmt::format("{}: {}", kNotSupported, field.why)));
  }
  return out;
}

}  // namespace trainyard::kube

namespace trainyard::kube {

std::optional<KubeError> PlaceObject(ObjectMeta& metadata, std::string_view url_namespace,
                                     std::string_view url_name) {
  if (!url_name.empty() && metadata.name != url_name) {
    return BadRequest("the name of the object (" + metadata.name +
                      ") does not match the name on the URL (" + std::string(url_name) + ")");
  }
  if (metadata.namespace_name.empty()) {
    metadata.namespace_name = url_namespace;
  } else if (metadata.namespace_name != url_namespace) {
    return BadRequest(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  return std::nullopt;
}

}  // namespace trainyard::kube
