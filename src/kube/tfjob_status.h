// A trainyard job seen as the Kubeflow operator would report it: the TFJob's status (conditions,
// per-type replica counts, start and completion times; docs/reference/kubeflow-tfjob.md §3, §5) and
// one pod per replica (§4.1). Derived from the engine's job and what is known of its replicas;
// time comes in as a parameter. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "kube/tfjob.h"
#include "model/job.h"

namespace trainyard::kube {

enum class ReplicaState : std::uint8_t {
  kPending,     // not started yet (queued, staging, or waiting for its first start)
  kRunning,     // its process or container is alive
  kRestarting,  // it ended and its restart rule starts it again
  kExited,      // it ended for good; `exit_code` says how
};

// What the engine knows of one replica now.
struct ReplicaView {
  std::string task_name;  // the engine's: "master-replica-0", "worker-replica-1"
  ReplicaState state = ReplicaState::kPending;
  std::int32_t restarts = 0;
  // The exit status when kExited or kRestarting; a replica killed by signal N reports 128 + N,
  // as Kubernetes shows a signalled container. nullopt when it is not known.
  std::optional<int> exit_code;
  std::optional<WallTime> started_at;   // its last start
  std::optional<WallTime> finished_at;  // when it ended (kExited, kRestarting)

  friend bool operator==(const ReplicaView&, const ReplicaView&) = default;
};

// The Kubeflow naming of `job`: its extras' (a job from a TFJob), else one derived from the
// job id ('_' made '-', namespace "default", primary "chief") so any job can be shown.
model::KubeflowNaming KubeflowNamingOf(const model::Job& job);

// How many replicas of each Kubeflow type `job` has, in canonical order; types with none are
// left out, except the primary.
struct TypeCount {
  std::string type;  // canonical
  std::int32_t replicas = 0;

  friend bool operator==(const TypeCount&, const TypeCount&) = default;
};
std::vector<TypeCount> ReplicaCountsOf(const model::Job& job);

// The status of the TFJob `job` is (job.extras.kubeflow names it), with `replicas` for the
// per-type counts and the Restarting condition. Conditions, oldest first (§3):
//   QUEUED, PREPARING        Created
//   suspended (not ended)    Created, Suspended
//   resumed since            Created, Suspended=False (TFJobResumed), then as above
//   RUNNING, CANCELLING      Created, Running (or Restarting while a replica restarts)
//   SUCCEEDED                Created, Running=False, Succeeded
//   FAILED                   Created, Running=False, Failed (the job's errorMessage)
//   CANCELLED                Created, Running=False, Failed ("…was cancelled" or "…deleted")
// Running=False only when the job had started. `now` stamps the Restarting condition and
// lastReconcileTime.
TFJobStatus StatusOf(const model::Job& job, const std::vector<ReplicaView>& replicas, WallTime now);

// The `status` object alone, as EncodeTFJob writes it.
std::string EncodeTFJobStatus(const TFJobStatus& status);

struct Pod {
  std::string name;  // "<job>-<type>-<index>"
  std::string namespace_name;
  std::map<std::string, std::string> labels;  // training.kubeflow.org/…
  std::string replica_type;                   // canonical: "Worker"
  int replica_index = 0;
  std::string task_name;  // the engine's
  std::string phase;      // Pending | Running | Succeeded | Failed
  std::string image;
  bool ready = false;
  std::int32_t restart_count = 0;
  // The container's state: "running", "terminated", "waiting", or "" (not created yet).
  std::string container_state;
  std::string
      reason;  // terminated: Completed | Error; waiting: ContainerCreating | CrashLoopBackOff
  std::optional<int> exit_code;
  std::optional<WallTime> started_at;
  std::optional<WallTime> finished_at;
  std::optional<WallTime> creation_timestamp;
  std::string node_name;
  // The TFJob that owns it (ownerReferences).
  std::string owner_api_version;
  std::string owner_name;
  std::string owner_uid;

  friend bool operator==(const Pod&, const Pod&) = default;
};

// The pods of `job`: every replica of a job that has not ended (those without a view pending),
// and the replicas with a view once it has; none while it is suspended. In the order Chief,
// Master, PS, Worker, Evaluator, then by index.
std::vector<Pod> PodsOf(const model::Job& job, const std::vector<ReplicaView>& replicas,
                        std::string_view node_name);

// core/v1 Pod JSON: metadata (name, namespace, labels, ownerReferences to the TFJob,
// creationTimestamp), spec (containers [{name tensorflow, image}], nodeName, restartPolicy) and
// status (phase, startTime, containerStatuses with every field the API reference requires, the
// container's state and, while it restarts, its last end as lastState). Times are RFC 3339 or
// null, as a metav1.Time is written; never "".
std::string EncodePod(const Pod& pod);

}  // namespace trainyard::kube
