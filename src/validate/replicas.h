// Internal to validate/: the job's replica roles (master, worker, parameter server, evaluator)
// seen uniformly, so per-replica rules are written once.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "model/job.h"
#include "validate/violations.h"

namespace trainyard::validate {

enum class Role { kMaster, kWorker, kParameterServer, kEvaluator };

// Whether `config.type` names an accelerator ("" and ACCELERATOR_TYPE_UNSPECIFIED do not).
bool HasAcceleratorType(const model::AcceleratorConfig& config);

// One role as the request spells it: `masterType`/`masterConfig`, `workerType`/`workerCount`/
// `workerConfig`, … Points into the `TrainingInput` it was made from.
struct ReplicaView {
  Role role = Role::kMaster;
  std::string_view noun;   // "master", "worker", "parameter server", "evaluator"
  FieldPath type_path;     // trainingInput.workerType
  FieldPath count_path;    // trainingInput.workerCount; the root for the master
  FieldPath config_path;   // trainingInput.workerConfig
  std::string_view type;   // the machine type as given; may be empty
  std::int64_t count = 0;  // as given; the master has no count field and reads 1
  const model::ReplicaConfig* config = nullptr;  // nullptr when absent

  bool has_count_field() const { return role != Role::kMaster; }
  const model::AcceleratorConfig* accelerator_config() const;
  FieldPath accelerator_path() const { return config_path.Child("acceleratorConfig"); }
};

// Master, worker, parameter server, evaluator: request-field order.
std::array<ReplicaView, 4> ReplicaViews(const model::TrainingInput& input);

// The image a replica runs: its own `imageUri`, else the master's ("" for a runtime job).
std::string_view EffectiveImage(const ReplicaView& replica, const model::TrainingInput& input);

// A role that will actually run, with the machine type the request or its scale tier gives it
// and the accelerator it gets (its `acceleratorConfig`, else what its machine type has built in).
struct RunningReplica {
  const ReplicaView* view = nullptr;
  std::string_view machine_type;
  std::int64_t count = 0;
  const catalog::MachineType* machine = nullptr;      // nullptr when unknown
  const catalog::Accelerator* accelerator = nullptr;  // nullptr when none or unknown
  std::int64_t accelerator_count = 0;
};

// The roles with at least one replica. For predefined scale tiers the machine types come from
// the catalog's tier spec; for CUSTOM from the request. `views` must outlive the result.
std::vector<RunningReplica> RunningReplicas(const std::array<ReplicaView, 4>& views,
                                            const model::TrainingInput& input,
                                            const catalog::Catalog& catalog);

// Whether any running replica is a TPU host or carries a TPU accelerator.
bool UsesTpu(const std::vector<RunningReplica>& running);

// "a, b and c"
std::string JoinAnd(const std::vector<std::string>& items);

}  // namespace trainyard::validate
