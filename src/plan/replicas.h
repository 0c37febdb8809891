// A job's replicas: the roles, counts, machine types and accelerators a valid TrainingInput asks
// for, with the predefined scale tiers expanded through the catalog. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "model/job.h"

namespace trainyard::plan {

enum class Role { kMaster, kWorker, kParameterServer, kEvaluator };

// "master", "worker", "ps", "evaluator": the words of task names and error messages.
std::string_view RoleName(Role role);

// "master-replica-0", "worker-replica-1", "ps-replica-0", "evaluator-replica-2"
// (docs/reference/ai-platform-training.md §7.1).
std::string TaskName(Role role, int index);

// A Vertex AI job's replica names, by worker pool (docs/reference/ai-platform-training.md §13): the
// master is "workerpool0-0", worker i "workerpool1-<i>", parameter server i "workerpool2-<i>",
// evaluator i "workerpool3-<i>".
std::string VertexTaskName(Role role, int index);
// The pool of a role: 0 master, 1 workers, 2 parameter servers, 3 evaluators.
int VertexPool(Role role);

// What a job's extras (model/job_extras.h) ask of `role`'s replicas.
const model::RoleExtras& RoleExtrasOf(const model::JobExtras& extras, Role role);

struct ReplicaShape {
  Role role = Role::kMaster;
  int index = 0;
  std::string task_name;
  std::string machine_type;  // catalog name; from the scale tier when not CUSTOM
  // From the replica's acceleratorConfig, else the machine type's built-in one (standard_gpu:
  // NVIDIA_TESLA_K80 x 1, cloud_tpu: TPU_V2 x 8); "" and 0 when none.
  std::string accelerator;
  int accelerator_count = 0;
  // The replica's own config (masterConfig, workerConfig, …) after AI Platform's fallback: a
  // worker, parameter server or evaluator with no imageUri of its own runs masterConfig's image,
  // and then takes masterConfig's containerCommand and containerArgs where it sets none of its
  // own. acceleratorConfig, diskConfig and tpuTfVersion are never inherited.
  model::ReplicaConfig config;
  // A built-in algorithm's image (docs/reference/ai-platform-training.md §12,
  // algorithms/algorithms.h) that this server runs as a program instead of pulling it; then
  // `config.image_uri` is "" and the replica is a process (plan/cluster_plan.h). "" otherwise.
  std::string algorithm_image;
};

// Every replica: the master first, then workers, parameter servers and evaluators, each by index.
// BASIC, BASIC_GPU, BASIC_TPU, STANDARD_1, PREMIUM_1 come from the catalog's scale tiers (BASIC_TPU
// is a master plus one cloud_tpu worker; tiers have no evaluators); CUSTOM from the
// *Type/*Count/*Config fields. Expects a job that passed validation; INVALID_ARGUMENT
// (naming the field) when a machine type or tier is unknown to the catalog.
Result<std::vector<ReplicaShape>> ExpandReplicas(const model::TrainingInput& input,
                                                 const catalog::Catalog& catalog);

// A job's replicas as the engine runs them: `ExpandReplicas` of its trainingInput (which it must
// have), named as the API it came from names them (a Vertex job's by worker pool).
Result<std::vector<ReplicaShape>> JobReplicas(const model::Job& job,
                                              const catalog::Catalog& catalog);

}  // namespace trainyard::plan
