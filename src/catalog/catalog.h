// What hardware and software a job may ask for: machine types, accelerators, the allowed GPU
// counts table, regions and zones, scale tiers, runtime versions.
//
// The facts live in catalog/data/*.json (embedded at build time, see catalog/data/README.md);
// this code only loads and indexes them. A `Catalog` is immutable once loaded and safe to share
// between threads. Lookups return nullptr when a name is unknown.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trainyard::catalog {

enum class MachineFamily {
  kLegacy,         // standard, large_model, complex_model_*, *_gpu, *_p100, *_v100
  kComputeEngine,  // n1-*, a2-*
  kTpuHost,        // cloud_tpu: a TPU VM, worker role only
};

enum class AcceleratorKind { kGpu, kTpu };

struct MachineType {
  std::string name;
  MachineFamily family = MachineFamily::kComputeEngine;
  int vcpus = 0;
  double memory_gb = 0;
  // GPUs/TPUs that come with the type (legacy *_gpu types, a2-*, cloud_tpu); none otherwise.
  std::string builtin_accelerator;
  int builtin_accelerator_count = 0;
  std::string compute_engine_equivalent;  // legacy types only
  std::string description;
  // Not in AI Platform's documented list (a2-ultragpu-*, a3-*, g2-*): present so real hardware
  // can be described; a server may refuse such types in requests.
  bool extension = false;
};

// An extra limit at one count, e.g. 8 x K80 need a machine of at most 208 GB.
struct AcceleratorCap {
  int count = 0;
  int max_vcpus = 0;
  double max_memory_gb = 0;
};

struct Accelerator {
  std::string name;       // API enum name, "NVIDIA_TESLA_T4"
  std::string flag_name;  // gcloud flag spelling, "nvidia-tesla-t4"
  AcceleratorKind kind = AcceleratorKind::kGpu;
  std::string display_name;         // "NVIDIA Tesla T4"
  double device_memory_gb = 0;      // memory on the device itself
  std::vector<int> allowed_counts;  // on N1-style machines; a2-style types fix their own count
  int max_vcpus_per_unit = 0;       // a VM may have at most count x this many vCPUs
  double max_memory_gb_per_unit = 0;
  std::vector<AcceleratorCap> caps;
  // Only attachable through machine types that have it built in (A100 on a2-*).
  bool builtin_only = false;
  // Substrings of `nvidia-smi --query-gpu=name` output that identify this model on a real box.
  std::vector<std::string> device_name_patterns;
  bool in_api_enum = true;  // false for accelerators newer than the ml v1 enum (H100, L4, …)
};

struct Zone {
  std::string name;
  std::vector<std::string> accelerators;  // accelerator names offered in this zone
};

struct Region {
  std::string name;
  std::vector<Zone> zones;
  bool has_gpus = false;
  bool has_tpus = false;
};

// What a predefined scale tier allocates.
struct ScaleTierSpec {
  std::string name;       // "STANDARD_1"
  std::string flag_name;  // "standard-1"
  std::string master_type;
  std::string worker_type;
  int worker_count = 0;
  std::string parameter_server_type;
  int parameter_server_count = 0;
  std::string description;
};

struct RuntimeVersion {
  std::string version;                       // "2.11"
  std::vector<std::string> python_versions;  // "3.7", …
  bool tpu = false;                          // usable for TPU training
  bool chief_in_tf_config = false;           // TF_CONFIG names the primary "chief" (>= 2.1)
};

class Catalog {
 public:
  // The catalog built into the binary from catalog/data/*.json. Loaded once; a broken data file
  // is a build bug, caught by the catalog tests, so this aborts rather than returning an error.
  static const Catalog& Builtin();

  // Loads a catalog from named JSON documents (file name -> text), e.g. for an operator's
  // override or for tests. Errors name the file and the entry.
  static Result<Catalog> Load(const std::vector<std::pair<std::string, std::string>>& files);

  const MachineType* FindMachineType(std::string_view name) const;
  const Accelerator* FindAccelerator(std::string_view name) const;
  const Accelerator* FindAcceleratorByFlag(std::string_view flag_name) const;
  // The accelerator one of whose `device_name_patterns` occurs in `device_name` (a line of
  // `nvidia-smi --query-gpu=name`) as whole words, ignoring case: "Tesla P4" matches
  // "Tesla P4" but not "Tesla P40". Load rejects a pattern that matches another accelerator's
  // pattern, so a real device name identifies one model; null when no pattern matches.
  const Accelerator* FindAcceleratorByDeviceName(std::string_view device_name) const;
  const Region* FindRegion(std::string_view name) const;
  const ScaleTierSpec* FindScaleTier(std::string_view name) const;
  const ScaleTierSpec* FindScaleTierByFlag(std::string_view flag_name) const;  // "basic-gpu"
  const RuntimeVersion* FindRuntimeVersion(std::string_view version) const;

  // The seed's table: allowed counts of `accelerator` on `machine_type`, or nullptr when the
  // table has no such cell (the accelerator cannot be attached to that type at all). Beyond the
  // seed's GPU rows it also has cloud_tpu (TPU_V2/TPU_V3: 8) and the extension types' built-in
  // GPUs; legacy types have no cells.
  const std::vector<int>* AllowedAcceleratorCounts(std::string_view machine_type,
                                                   std::string_view accelerator) const;

  // In data-file order, for listings.
  const std::vector<MachineType>& machine_types() const { return machine_types_; }
  const std::vector<Accelerator>& accelerators() const { return accelerators_; }
  const std::vector<Region>& regions() const { return regions_; }
  const std::vector<ScaleTierSpec>& scale_tiers() const { return scale_tiers_; }
  const std::vector<RuntimeVersion>& runtime_versions() const { return runtime_versions_; }

 private:
  std::vector<MachineType> machine_types_;
  std::vector<Accelerator> accelerators_;
  std::vector<Region> regions_;
  std::vector<ScaleTierSpec> scale_tiers_;
  std::vector<RuntimeVersion> runtime_versions_;
  // Name -> position in the vectors above (positions, not pointers, so copies stay valid).
  using Index = std::map<std::string, std::size_t, std::less<>>;
  Index machine_type_index_;
  Index accelerator_index_;
  Index accelerator_flag_index_;
  Index region_index_;
  Index scale_tier_index_;
  Index scale_tier_flag_index_;
  Index runtime_version_index_;
  // machine type -> accelerator -> allowed counts
  std::map<std::string, std::map<std::string, std::vector<int>, std::less<>>, std::less<>>
      allowed_counts_;
};

}  // namespace trainyard::catalog
