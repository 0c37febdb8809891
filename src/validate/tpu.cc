#include <algorithm>

#include <fmt/format.h>

#include "validate/rules.h"

namespace trainyard::validate {
namespace {

bool IsTpuHost(const catalog::MachineType* machine) {
  return machine != nullptr && machine->family == catalog::MachineFamily::kTpuHost;
}

std::string TpuRuntimes(const catalog::Catalog& catalog) {
  std::vector<std::string> versions;
  for (const catalog::RuntimeVersion& runtime : catalog.runtime_versions()) {
    if (runtime.tpu) {
      versions.push_back(runtime.version);
    }
  }
  return fmt::format("{}", fmt::join(versions, ", "));
}

bool IsTpuRuntime(const catalog::Catalog& catalog, std::string_view version) {
  const catalog::RuntimeVersion* runtime = catalog.FindRuntimeVersion(version);
  return runtime != nullptr && runtime->tpu;
}

// TPU seed (custom TPU machine): roles and counts around a cloud_tpu worker.
void CheckTpuRoles(const JobContext& job, Violations& out) {
  for (const ReplicaView& view : job.views) {
    if (view.type.empty() || !IsTpuHost(job.catalog.FindMachineType(view.type))) {
      continue;
    }
    if (view.role != Role::kWorker) {
      // docs/reference/ai-platform-training.md §4.1/§6: cloud_tpu is a worker type only.
      out.Add(view.type_path, fmt::format("{} is a TPU host and can only be the workerType, not "
                                          "the {}",
                                          view.type, view.noun));
    } else if (view.count != 1) {
      // TPU seed: "set workerCount to 1".
      out.Add(view.count_path, fmt::format("must be 1 with workerType {} (one TPU host); got {}",
                                           view.type, view.count));
    }
  }
}

const RunningReplica* TpuWorker(const JobContext& job) {
  for (const RunningReplica& replica : job.running) {
    if (replica.view->role == Role::kWorker && IsTpuHost(replica.machine)) {
      return &replica;
    }
  }
  return nullptr;
}

// TPU seed (custom container on a TPU worker) and docs/reference/ai-platform-training.md §2.3:
// `tpuTfVersion` is set exactly on a TPU worker that runs a custom container, and names a TPU
// runtime version.
void CheckTpuTfVersion(const JobContext& job, Violations& out) {
  const RunningReplica* tpu_worker = TpuWorker(job);
  for (const ReplicaView& view : job.views) {
    const bool is_tpu_worker = tpu_worker != nullptr && tpu_worker->view == &view;
    const bool has_image = !EffectiveImage(view, job.input).empty();
    const std::string_view version =
        view.config == nullptr ? std::string_view() : view.config->tpu_tf_version;
    const FieldPath path = view.config_path.Child("tpuTfVersion");
    if (version.empty()) {
      if (is_tpu_worker && has_image) {
        out.Add(path, fmt::format("is required for a TPU worker running a custom container: name "
                                  "the runtime version whose TensorFlow the image uses; TPU "
                                  "runtimes: {}",
                                  TpuRuntimes(job.catalog)));
      }
      continue;
    }
    if (!is_tpu_worker) {
      out.Add(path, fmt::format("is allowed only on a TPU worker running a custom container; the "
                                "{} is not a TPU worker",
                                view.noun));
    } else if (!has_image) {
      out.Add(path,
              "is allowed only on a TPU worker running a custom container; this worker "
              "runs runtimeVersion (set workerConfig.imageUri or masterConfig.imageUri)");
    } else if (!IsTpuRuntime(job.catalog, version)) {
      out.Add(path,
              fmt::format("'{}' is not a runtime version that supports TPUs; TPU runtimes: {}",
                          version, TpuRuntimes(job.catalog)));
    }
  }
}

}  // namespace

void CheckTpu(const JobContext& job, Violations& out) {
  if (job.custom()) {
    CheckTpuRoles(job, out);
  }
  CheckTpuTfVersion(job, out);
  if (!UsesTpu(job.running)) {
    return;
  }

  // TPU seed: "the service rejects the job if parameterServerCount is greater than zero".
  const bool has_ps = job.custom() ? job.input.parameter_server_count > 0
                                   : std::ranges::any_of(job.running, [](const RunningReplica& r) {
                                       return r.view->role == Role::kParameterServer;
                                     });
  if (has_ps) {
    out.Add(job.views[2].count_path,
            "must be 0 when the job uses a Cloud TPU: TPU jobs take no parameter servers");
  }

  // TPU seed: runtime versions 1.13, 1.14, 1.15, 2.1 and 2.2 (the catalog's `tpu` flag) run on
  // Cloud TPU. Container jobs name theirs in `tpuTfVersion` instead.
  if (job.container_job()) {
    return;
  }
  const FieldPath path = job.path.Child("runtimeVersion");
  if (job.input.runtime_version.empty()) {
    out.Add(path, fmt::format("is required for a TPU job: choose a runtime version that supports "
                              "TPUs: {}",
                              TpuRuntimes(job.catalog)));
  } else if (job.catalog.FindRuntimeVersion(job.input.runtime_version) != nullptr &&
             !IsTpuRuntime(job.catalog, job.input.runtime_version)) {
    out.Add(path, fmt::format("runtime version {} does not support TPUs; TPU runtimes: {}",
                              job.input.runtime_version, TpuRuntimes(job.catalog)));
  }
}

}  // namespace trainyard::validate
