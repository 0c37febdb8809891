// A TFJob as a trainyard job (docs/reference/kubeflow-tfjob.md §11 "Import"), and the names that
// tie the engine's replicas to Kubeflow's pods. Pure.
//
// The contract the engine and the server rely on: the engine's master is the TFJob's Chief or
// Master replica, else Kubeflow's worker 0 (then `KubeflowNaming::primary_type` is "worker", the
// engine's worker i is Kubeflow's worker i + 1 and workerCount = Worker.replicas - 1); PS are the
// parameter servers and Evaluator the evaluators. Each role's restartPolicy becomes its
// `RestartRule`, and the TFJob itself is kept in `JobExtras::kube`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "kube/kube_status.h"
#include "kube/tfjob.h"
#include "model/job.h"
#include "model/job_id_scheme.h"

namespace trainyard::kube {

// A node the job may run on, as the scheduler sees it.
struct NodeView {
  std::string name;
  std::map<std::string, std::string> labels;  // with the well-known ones (sched/node_labels.h)
  std::vector<std::string> accelerators;      // catalog names it offers, "NVIDIA_TESLA_T4"
};

struct MappingContext {
  std::string job_id;    // the engine's job id (EngineJobId, or with a suffix when taken)
  std::string uid;       // the TFJob's metadata.uid
  std::string document;  // the TFJob as applied (EncodeTFJob), kept in KubeObject::document
  std::vector<NodeView> nodes;
  // ml v1 needs a region; its accelerators are checked against it.
  std::string region = "us-central1";
  // Where machine types and accelerators are looked up; the built-in catalog when null.
  const catalog::Catalog* catalog = nullptr;
};

// The job to submit: scaleTier CUSTOM, one machine type per role (n1-standard-4, or the first in
// catalog order that takes the role's GPU count), each role's image, command (containerCommand)
// and args (containerArgs), GPUs from `limits["nvidia.com/gpu"]` of a type chosen from the node
// selector and `nodes`, `scheduling.maxRunningTime` from activeDeadlineSeconds and
// `scheduling.maxWaitTime` from schedulingPolicy.scheduleTimeoutSeconds, the TFJob's labels that
// are valid ml v1 labels, and the extras. `job` must have passed ValidateTFJob; a job without a
// primary replica is INVALID_ARGUMENT. The result still goes through validate::Validate (GPU
// counts per machine, regions) when submitted.
Result<model::Job> ToJob(const TFJob& job, const MappingContext& context);

// The causes of a 422 for the ml v1 rules `job`'s mapped job broke (`status`, INVALID_ARGUMENT):
// each at the TFJob field it came from where there is one (a replica type's container command,
// args and env, as validate.h names them: "trainingInput.workerConfig.containerArgs[2]" is
// "spec.tfReplicaSpecs[Worker].template.spec.containers[0].args[2]"), else at
// "spec (as the AI Platform job <path>)". A cause two roles share (worker 0 is the master) once.
std::vector<StatusCause> MappedJobCauses(const Status& status, const TFJob& job);

// The engine's job id for a TFJob name: '-' becomes '_', because ml v1 job ids are letters,
// digits and '_' (a DNS-1035 name starts with a letter, so the result is a valid id).
std::string EngineJobId(std::string_view tfjob_name);

// The engine job ids a new TFJob named `tfjob_name` may take, in order: EngineJobId, then with
// "_2", "_3", … up to "_100" appended, for when an earlier TFJob of the same name (deleted since)
// or an ml v1 job holds the id. No random draw.
model::JobIdScheme JobIdSchemeFor(std::string_view tfjob_name);

// The accelerator a role's GPUs are: an explicit type in its node selector
// (`cloud.google.com/gke-accelerator` or `accelerator`: "nvidia-tesla-t4";
// `nvidia.com/gpu.product`: "Tesla-T4"), else the first type offered by the first node the
// selector matches, else the first type any node offers, else NVIDIA_TESLA_T4.
std::string AcceleratorFor(const std::map<std::string, std::string>& node_selector,
                           const std::vector<NodeView>& nodes, const catalog::Catalog& catalog);

// A replica in Kubeflow's terms: canonical type ("Worker") and index.
struct KubeReplica {
  std::string type;
  int index = 0;

  friend bool operator==(const KubeReplica&, const KubeReplica&) = default;
};

// "<job>-<type>-<index>" with the type lower-cased and '/' in the job name made '-' (§4.1).
std::string PodName(std::string_view job_name, std::string_view type, int index);

// The engine's task name ("master-replica-0", "worker-replica-2", "ps-replica-0",
// "evaluator-replica-1", plan::TaskName's rule) as a Kubeflow replica, and back; nullopt for a
// name or type outside the rule.
std::optional<KubeReplica> KubeReplicaOf(std::string_view task_name,
                                         const model::KubeflowNaming& naming);
std::optional<std::string> TaskNameOf(const KubeReplica& replica,
                                      const model::KubeflowNaming& naming);

// The canonical type of the primary ("Chief", "Master" or "Worker") for a naming's primary_type.
std::string PrimaryType(const model::KubeflowNaming& naming);

}  // namespace trainyard::kube
