// A Kubeflow TFJob (`kubeflow.org/v1`, and the older `v1beta2`) as plain values: what kubectl
// sends and what trainyard answers. Field names follow the JSON names of the operator's Go types
// (docs/reference/kubeflow-tfjob.md §1–§3); only the fields trainyard reads or must refuse are
// here. Value types, no IO.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"

namespace trainyard::kube {

inline constexpr std::string_view kGroup = "kubeflow.org";
inline constexpr std::string_view kTFJobKind = "TFJob";
inline constexpr std::string_view kTFJobResource = "tfjobs";
inline constexpr std::string_view kApiVersionV1 = "kubeflow.org/v1";
inline constexpr std::string_view kApiVersionV1Beta2 = "kubeflow.org/v1beta2";
// The operator's constants (§2.2): the container it configures, its port's name and number.
inline constexpr std::string_view kContainerName = "tensorflow";
inline constexpr std::string_view kPortName = "tfjob-port";
inline constexpr std::int32_t kDefaultPort = 2222;
inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";

// Replica types in the canonical spelling and order (the order specs are kept and written in).
inline constexpr std::string_view kChief = "Chief";
inline constexpr std::string_view kMaster = "Master";
inline constexpr std::string_view kPS = "PS";
inline constexpr std::string_view kWorker = "Worker";
inline constexpr std::string_view kEvaluator = "Evaluator";
inline constexpr std::string_view kReplicaTypes[] = {kChief, kMaster, kPS, kWorker, kEvaluator};

using StringMap = std::map<std::string, std::string>;

struct ObjectMeta {
  std::string name;
  std::string namespace_name;
  StringMap labels;
  StringMap annotations;
  std::string uid;
  std::string resource_version;
  std::int64_t generation = 0;
  std::optional<WallTime> creation_timestamp;
  std::optional<WallTime> deletion_timestamp;

  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

struct EnvVar {
  std::string name;
  std::string value;
  bool value_from = false;  // `valueFrom` was given: refused by validation, never resolved

  friend bool operator==(const EnvVar&, const EnvVar&) = default;
};

struct ContainerPort {
  std::string name;
  std::int32_t container_port = 0;

  friend bool operator==(const ContainerPort&, const ContainerPort&) = default;
};

struct Container {
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<EnvVar> env;
  std::string working_dir;
  std::vector<ContainerPort> ports;
  // Resource name -> quantity as written ("1", "500m", "4Gi"); numbers become their text.
  StringMap limits;
  StringMap requests;
  std::string image_pull_policy;
  std::string termination_message_policy;

  friend bool operator==(const Container&, const Container&) = default;
};

// The pod template of a replica spec: the parts of a core/v1 PodTemplateSpec trainyard honours.
struct PodTemplate {
  StringMap labels;
  StringMap annotations;
  std::vector<Container> containers;
  StringMap node_selector;
  std::string service_account_name;
  std::string restart_policy;  // template.spec.restartPolicy: overridden by the replica spec's

  friend bool operator==(const PodTemplate&, const PodTemplate&) = default;
};

struct ReplicaSpec {
  std::string type;                      // canonical: "Chief", "Master", "PS", "Worker", …
  std::int32_t replicas = 1;             // the operator's default
  std::string restart_policy = "Never";  // TFJob's default (TFJobDefaultRestartPolicy)
  PodTemplate template_;

  friend bool operator==(const ReplicaSpec&, const ReplicaSpec&) = default;
};

struct SchedulingPolicy {
  std::optional<std::int32_t> min_available;
  std::string queue;
  std::string priority_class;
  StringMap min_resources;
  std::optional<std::int32_t> schedule_timeout_seconds;

  friend bool operator==(const SchedulingPolicy&, const SchedulingPolicy&) = default;
};

struct RunPolicy {
  std::optional<std::string> clean_pod_policy;  // unset: "None" (v1) or "Running" (v1beta2)
  std::optional<std::int32_t> ttl_seconds_after_finished;
  std::optional<std::int64_t> active_deadline_seconds;
  std::optional<std::int32_t> backoff_limit;
  bool suspend = false;
  std::optional<SchedulingPolicy> scheduling_policy;
  std::optional<std::string> managed_by;

  friend bool operator==(const RunPolicy&, const RunPolicy&) = default;
};

// A field the Kubernetes schema knows but trainyard cannot honour (volumes, affinity, …). The
// decoder records it so validation refuses it by name instead of dropping it.
struct UnsupportedField {
  std::string field;  // Kubernetes path: "spec.tfReplicaSpecs[Worker].template.spec.volumes"
  std::string why;    // what trainyard does instead, or why it cannot

  friend bool operator==(const UnsupportedField&, const UnsupportedField&) = default;
};

struct TFJob {
  std::string api_version = std::string(kApiVersionV1);
  ObjectMeta metadata;
  RunPolicy run_policy;
  std::string success_policy;  // "" or "AllWorkers"
  bool enable_dynamic_worker = false;
  std::vector<ReplicaSpec> replica_specs;  // canonical order, each type at most once
  std::vector<UnsupportedField> unsupported;

  // The spec of `type` (canonical spelling), or nullptr.
  const ReplicaSpec* Find(std::string_view type) const;

  friend bool operator==(const TFJob&, const TFJob&) = default;
};

// The status the operator writes (§3), derived here from the engine's job.
struct JobCondition {
  std::string type;    // Created | Running | Restarting | Succeeded | Failed | Suspended
  std::string status;  // "True" | "False"
  std::string reason;  // TFJobCreated, TFJobRunning, …
  std::string message;
  WallTime last_update_time{};
  WallTime last_transition_time{};

  friend bool operator==(const JobCondition&, const JobCondition&) = default;
};

struct ReplicaStatus {
  std::int32_t active = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;

  friend bool operator==(const ReplicaStatus&, const ReplicaStatus&) = default;
};

struct TFJobStatus {
  std::vector<JobCondition> conditions;  // oldest first; kubectl's State column is the last
  std::map<std::string, ReplicaStatus> replica_statuses;  // canonical type -> counts
  std::optional<WallTime> start_time;
  std::optional<WallTime> completion_time;
  std::optional<WallTime> last_reconcile_time;

  friend bool operator==(const TFJobStatus&, const TFJobStatus&) = default;
};

// "ps" for "PS", "worker" for "Worker": the spelling of pod names and TF_CONFIG.
std::string LowerType(std::string_view type);

// The canonical spelling of a replica-type key, matched case-insensitively as the operator's
// defaulter does ("ps" -> "PS"); nullopt for anything but the five types.
std::optional<std::string> CanonicalType(std::string_view key);

}  // namespace trainyard::kube
