// Vertex AI's CustomJob as values (aiplatform v1 `custom_job.proto`,
// docs/reference/ai-platform-training.md §13), and its strict proto3-JSON decoder. Only the
// request's fields: the output-only ones (name, state, times, error) are derived from the engine's
// job when encoding (vertex_json.h). Pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/time_format.h"

namespace trainyard::vertex {

using EnvVars = std::vector<std::pair<std::string, std::string>>;

struct MachineSpec {
  std::string machine_type;
  std::string accelerator_type;  // "" or "ACCELERATOR_TYPE_UNSPECIFIED" when none
  std::int32_t accelerator_count = 0;

  friend bool operator==(const MachineSpec&, const MachineSpec&) = default;
};

struct DiskSpec {
  std::string boot_disk_type;
  std::int32_t boot_disk_size_gb = 0;

  friend bool operator==(const DiskSpec&, const DiskSpec&) = default;
};

struct ContainerSpec {
  std::string image_uri;
  std::vector<std::string> command;
  std::vector<std::string> args;
  EnvVars env;

  friend bool operator==(const ContainerSpec&, const ContainerSpec&) = default;
};

struct PythonPackageSpec {
  std::string executor_image_uri;
  std::vector<std::string> package_uris;
  std::string python_module;
  std::vector<std::string> args;
  EnvVars env;

  friend bool operator==(const PythonPackageSpec&, const PythonPackageSpec&) = default;
};

// One worker pool. Index 0 is the chief, 1 the workers, 2 the parameter servers, 3 the
// evaluators; a pool with nothing set (`{}`) only holds a place (a job with parameter servers but
// no workers).
struct WorkerPoolSpec {
  std::optional<ContainerSpec> container_spec;
  std::optional<PythonPackageSpec> python_package_spec;
  MachineSpec machine_spec;
  std::int64_t replica_count = 0;
  std::optional<DiskSpec> disk_spec;

  bool placeholder() const { return *this == WorkerPoolSpec{}; }
  friend bool operator==(const WorkerPoolSpec&, const WorkerPoolSpec&) = default;
};

struct Scheduling {
  std::optional<Duration> timeout;
  bool restart_job_on_worker_restart = false;

  friend bool operator==(const Scheduling&, const Scheduling&) = default;
};

struct CustomJobSpec {
  std::vector<WorkerPoolSpec> worker_pool_specs;
  std::optional<Scheduling> scheduling;
  std::string service_account;
  std::string network;
  std::string base_output_directory;  // baseOutputDirectory.outputUriPrefix
  bool enable_web_access = false;

  friend bool operator==(const CustomJobSpec&, const CustomJobSpec&) = default;
};

// What a create request asks for.
struct CustomJob {
  std::string display_name;
  CustomJobSpec job_spec;
  std::map<std::string, std::string> labels;
  std::string kms_key_name;  // encryptionSpec.kmsKeyName (accepted; data at rest is the host's)

  friend bool operator==(const CustomJob&, const CustomJob&) = default;
};

// Decodes a CustomJob create body. Unknown fields, wrong JSON types and fields trainyard cannot
// honour are INVALID_ARGUMENT with one violation each, paths in camelCase from the resource
// ("jobSpec.workerPoolSpecs[0].machineSpec.machineType"). Output-only fields are ignored, as
// Google ignores them on create.
Result<CustomJob> DecodeCustomJob(std::string_view text);

}  // namespace trainyard::vertex
