#include <string>

#include <fmt/format.h>

#include "vertex/custom_job.h"
#include "vertex/decode_internal.h"
#include "vertex/json_reader.h"

namespace trainyard::vertex {
namespace internal {
namespace {

using nlohmann::json;

MachineSpec ReadMachineSpec(Reader& pool) {
  MachineSpec out;
  const json* value = pool.Object("machineSpec");
  if (value == nullptr) {
    return out;
  }
  Reader spec(*value, pool.ChildPath("machineSpec"), pool.problems());
  out.machine_type = spec.String("machineType");
  out.accelerator_type = spec.String("acceleratorType");
  out.accelerator_count = spec.Int32("acceleratorCount");
  spec.Unsupported("tpuTopology", "TPU slices are not offered by this server");
  spec.Unsupported("reservationAffinity", "there are no reservations on this server");
  spec.Finish();
  return out;
}

std::optional<DiskSpec> ReadDiskSpec(Reader& pool) {
  const json* value = pool.Object("diskSpec");
  if (value == nullptr) {
    return std::nullopt;
  }
  Reader spec(*value, pool.ChildPath("diskSpec"), pool.problems());
  DiskSpec out{.boot_disk_type = spec.String("bootDiskType"),
               .boot_disk_size_gb = spec.Int32("bootDiskSizeGb")};
  spec.Finish();
  return out;
}

std::optional<ContainerSpec> ReadContainerSpec(Reader& pool) {
  const json* value = pool.Object("containerSpec");
  if (value == nullptr) {
    return std::nullopt;
  }
  Reader spec(*value, pool.ChildPath("containerSpec"), pool.problems());
  ContainerSpec out{.image_uri = spec.String("imageUri"),
                    .command = spec.StringList("command"),
                    .args = spec.StringList("args"),
                    .env = spec.EnvVars("env")};
  spec.Finish();
  return out;
}

std::optional<PythonPackageSpec> ReadPythonPackageSpec(Reader& pool) {
  const json* value = pool.Object("pythonPackageSpec");
  if (value == nullptr) {
    return std::nullopt;
  }
  Reader spec(*value, pool.ChildPath("pythonPackageSpec"), pool.problems());
  PythonPackageSpec out{.executor_image_uri = spec.String("executorImageUri"),
                        .package_uris = spec.StringList("packageUris"),
                        .python_module = spec.String("pythonModule"),
                        .args = spec.StringList("args"),
                        .env = spec.EnvVars("env")};
  spec.Finish();
  return out;
}

WorkerPoolSpec ReadWorkerPool(const json& value, const std::string& path, Problems& problems) {
  Reader pool(value, path, problems);
  WorkerPoolSpec out;
  out.container_spec = ReadContainerSpec(pool);
  out.python_package_spec = ReadPythonPackageSpec(pool);
  out.machine_spec = ReadMachineSpec(pool);
  out.replica_count = pool.Int64("replicaCount");
  out.disk_spec = ReadDiskSpec(pool);
  pool.Unsupported("nfsMounts", "replicas see the server's buckets under /gcs/ instead");
  pool.Finish();
  return out;
}

std::optional<Scheduling> ReadScheduling(Reader& spec) {
  const json* value = spec.Object("scheduling");
  if (value == nullptr) {
    return std::nullopt;
  }
  Reader scheduling(*value, spec.ChildPath("scheduling"), spec.problems());
  Scheduling out{.timeout = scheduling.DurationValue("timeout"),
                 .restart_job_on_worker_restart = scheduling.Bool("restartJobOnWorkerRestart")};
  scheduling.Ignore("disableRetries");  // a preemption retry; there is no preemption here
  scheduling.Ignore("strategy");
  scheduling.Ignore("maxWaitDuration");
  scheduling.Finish();
  return out;
}

}  // namespace

CustomJobSpec ReadJobSpec(const json& value, const std::string& path, Problems& problems) {
  Reader spec(value, path, problems);
  CustomJobSpec out;
  if (const json* pools = spec.Array("workerPoolSpecs"); pools != nullptr) {
    for (std::size_t i = 0; i < pools->size(); ++i) {
      out.worker_pool_specs.push_back(ReadWorkerPool(
          (*pools)[i], fmt::format("{}[{}]", spec.ChildPath("workerPoolSpecs"), i), problems));
    }
  }
  out.scheduling = ReadScheduling(spec);
  out.service_account = spec.String("serviceAccount");
  out.network = spec.String("network");
  if (const json* base = spec.Object("baseOutputDirectory"); base != nullptr) {
    Reader directory(*base, spec.ChildPath("baseOutputDirectory"), problems);
    out.base_output_directory = directory.String("outputUriPrefix");
    directory.Finish();
  }
  out.enable_web_access = spec.Bool("enableWebAccess");
  spec.Ignore("enableDashboardAccess");
  spec.Ignore("reservedIpRanges");
  spec.Ignore("protectedArtifactLocationId");
  spec.Unsupported("tensorboard",
                   "there is no Vertex AI TensorBoard here; write event files "
                   "under AIP_TENSORBOARD_LOG_DIR");
  spec.Unsupported("experiment", "Vertex AI Experiments are not offered by this server");
  spec.Unsupported("experimentRun", "Vertex AI Experiments are not offered by this server");
  spec.Unsupported("models", "the Model Registry is not offered by this server");
  spec.Unsupported("persistentResourceId", "there are no persistent resources on this server");
  spec.Finish();
  return out;
}

}  // namespace internal

Result<CustomJob> DecodeCustomJob(std::string_view text) {
  Result<nlohmann::json> body = internal::ParseBody(text);
  if (!body.ok()) {
    return body.status();
  }
  internal::Problems problems;
  internal::Reader job(*body, "", problems);
  CustomJob out;
  out.display_name = job.String("displayName");
  if (const nlohmann::json* spec = job.Object("jobSpec"); spec != nullptr) {
    out.job_spec = internal::ReadJobSpec(*spec, "jobSpec", problems);
  }
  out.labels = job.StringMap("labels");
  if (const nlohmann::json* encryption = job.Object("encryptionSpec"); encryption != nullptr) {
    internal::Reader spec(*encryption, "encryptionSpec", problems);
    out.kms_key_name = spec.String("kmsKeyName");
    spec.Finish();
  }
  for (const char* output_only :
       {"name", "state", "createTime", "startTime", "endTime", "updateTime", "error",
        "webAccessUris", "satisfiesPzs", "satisfiesPzi"}) {
    job.Ignore(output_only);
  }
  job.Finish();
  if (!problems.empty()) {
    return problems.ToStatus();
  }
  return out;
}

}  // namespace trainyard::vertex
