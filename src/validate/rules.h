// Internal to validate/: the rule families, one per file, each appending to `out`.
// `validate.cc` runs them all; every function is pure.
#pragma once

#include <array>
#include <vector>

#include "catalog/catalog.h"
#include "model/job.h"
#include "validate/replicas.h"
#include "validate/violations.h"

namespace trainyard::validate {

// What every `TrainingInput` rule reads.
struct JobContext {
  const model::TrainingInput& input;
  const catalog::Catalog& catalog;
  const std::array<ReplicaView, 4>& views;
  const std::vector<RunningReplica>& running;
  FieldPath path;  // "trainingInput"
  // What a job from another API asks beyond `input` (a role's env and own args); nullptr for an
  // ml v1 job.
  const model::JobExtras* extras = nullptr;

  bool custom() const { return input.scale_tier == model::ScaleTier::kCustom; }
  bool container_job() const {
    return input.master_config && !input.master_config->image_uri.empty();
  }
};

void CheckJobId(const model::Job& job, Violations& out);               // job_id.cc
void CheckLabels(const model::Labels& labels, Violations& out);        // labels.cc
void CheckScaleTier(const JobContext& job, Violations& out);           // scale_tier.cc
void CheckMachineTypes(const JobContext& job, Violations& out);        // machines.cc
void CheckAcceleratorConfigs(const JobContext& job, Violations& out);  // accelerators.cc
void CheckRegion(const JobContext& job, Violations& out);              // regions.cc
void CheckTpu(const JobContext& job, Violations& out);                 // tpu.cc
void CheckCode(const JobContext& job, Violations& out);                // code.cc
void CheckContainers(const JobContext& job, Violations& out);          // containers.cc
void CheckScheduling(const JobContext& job, Violations& out);          // scheduling.cc
void CheckHyperparameters(const JobContext& job, Violations& out);     // hyperparameters.cc
void CheckDisks(const JobContext& job, Violations& out);               // disk.cc
void CheckExecLimits(const JobContext& job, Violations& out);          // exec_limits.cc
void CheckBuiltInAlgorithm(const JobContext& job, Violations& out);    // builtin_algorithms.cc
// A job whose master image is a built-in algorithm this server does not run: FAILED_PRECONDITION
// naming the image (builtin_algorithms.cc).
Status CheckAlgorithmAvailable(const model::Job& job);

}  // namespace trainyard::validate
