#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "validate/rules.h"

namespace trainyard::validate {
namespace {

using catalog::Accelerator;
using catalog::MachineType;

std::string Counts(const std::vector<int>& counts) {
  return fmt::format("{}", fmt::join(counts, ", "));
}

std::string AcceleratorNames(const catalog::Catalog& catalog) {
  std::vector<std::string> names;
  for (const Accelerator& accelerator : catalog.accelerators()) {
    names.push_back(accelerator.name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

// The table's cell, or an empty list when the cell is blank.
std::vector<int> Cell(const catalog::Catalog& catalog, const MachineType& machine,
                      const Accelerator& accelerator) {
  const std::vector<int>* cell = catalog.AllowedAcceleratorCounts(machine.name, accelerator.name);
  return cell == nullptr ? std::vector<int>() : *cell;
}

// GPU seed, restriction 2 and docs/reference/ai-platform-training.md §4.4: why `count` units of
// `accelerator` cannot feed `machine` (the per-unit vCPU/memory supply, then the special caps);
// nullopt when they can.
std::optional<std::string> FitProblem(const MachineType& machine, const Accelerator& gpu,
                                      std::int64_t count) {
  const double n = static_cast<double>(count);
  const bool short_of_vcpus =
      gpu.max_vcpus_per_unit > 0 && machine.vcpus > n * gpu.max_vcpus_per_unit;
  const bool short_of_memory =
      gpu.max_memory_gb_per_unit > 0 && machine.memory_gb > n * gpu.max_memory_gb_per_unit;
  if (short_of_vcpus || short_of_memory) {
    return fmt::format(
        "{} x {} supply at most {} vCPUs and {} GB (each up to {} vCPUs and {} GB), "
        "but {} has {} vCPUs and {} GB",
        count, gpu.name, n * gpu.max_vcpus_per_unit, n * gpu.max_memory_gb_per_unit,
        gpu.max_vcpus_per_unit, gpu.max_memory_gb_per_unit, machine.name, machine.vcpus,
        machine.memory_gb);
  }
  for (const catalog::AcceleratorCap& cap : gpu.caps) {
    if (cap.count != count) {
      continue;
    }
    if ((cap.max_vcpus > 0 && machine.vcpus > cap.max_vcpus) ||
        (cap.max_memory_gb > 0 && machine.memory_gb > cap.max_memory_gb)) {
      return fmt::format(
          "a configuration of {} x {} supports at most {} vCPUs and {} GB, but {} "
          "has {} vCPUs and {} GB",
          count, gpu.name, cap.max_vcpus, cap.max_memory_gb, machine.name, machine.vcpus,
          machine.memory_gb);
    }
  }
  return std::nullopt;
}

// GPU seed: the accelerators a machine type takes, for "what is accepted".
std::string AttachableTo(const catalog::Catalog& catalog, const MachineType& machine) {
  std::vector<std::string> names;
  for (const Accelerator& accelerator : catalog.accelerators()) {
    if (!Cell(catalog, machine, accelerator).empty()) {
      names.push_back(accelerator.name);
    }
  }
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

std::string NotAttachable(const catalog::Catalog& catalog, const MachineType& machine,
                          const Accelerator& gpu) {
  // GPU seed and docs/reference/ai-platform-training.md §4.3: A100 (builtin-only) comes with the a2
  // types and nothing else.
  if (gpu.builtin_only) {
    std::vector<std::string> carriers;
    for (const MachineType& type : catalog.machine_types()) {
      if (type.builtin_accelerator == gpu.name) {
        carriers.push_back(fmt::format("{} ({})", type.name, type.builtin_accelerator_count));
      }
    }
    return fmt::format("{} comes only built into its machine types: {}; {} cannot carry it",
                       gpu.name, fmt::join(carriers, ", "), machine.name);
  }
  if (!machine.builtin_accelerator.empty()) {
    return fmt::format("{} comes with {} x {} built in and takes no other accelerator",
                       machine.name, machine.builtin_accelerator_count,
                       machine.builtin_accelerator);
  }
  const int most = gpu.allowed_counts.empty() ? 0 : *std::ranges::max_element(gpu.allowed_counts);
  if (std::optional<std::string> why = FitProblem(machine, gpu, most)) {
    return fmt::format("{} cannot be attached to {}: {}; accelerators for {}: {}", gpu.name,
                       machine.name, *why, machine.name, AttachableTo(catalog, machine));
  }
  return fmt::format("{} cannot be attached to {}; accelerators for {}: {}", gpu.name, machine.name,
                     machine.name, AttachableTo(catalog, machine));
}

std::string CountNotOffered(const MachineType& machine, const Accelerator& gpu, std::int64_t count,
                            const std::vector<int>& cell) {
  if (machine.builtin_accelerator == gpu.name) {
    return fmt::format("{} comes with exactly {} x {}; allowed counts: {}", machine.name,
                       machine.builtin_accelerator_count, gpu.name, Counts(cell));
  }
  const bool count_exists =
      std::ranges::find(gpu.allowed_counts, count) != gpu.allowed_counts.end();
  if (count_exists && count < cell.front() && FitProblem(machine, gpu, count)) {
    // The seed's own example: n1-standard-32 needs at least 4 V100.
    return fmt::format(
        "{} needs at least {} {} (each supplies up to {} vCPUs and {} GB); allowed "
        "counts: {}",
        machine.name, cell.front(), gpu.name, gpu.max_vcpus_per_unit, gpu.max_memory_gb_per_unit,
        Counts(cell));
  }
  if (count_exists) {
    if (std::optional<std::string> why = FitProblem(machine, gpu, count)) {
      return fmt::format("{}; allowed counts on {}: {}", *why, machine.name, Counts(cell));
    }
  }
  return fmt::format("{} x {} is not offered on {}; allowed counts: {}", count, gpu.name,
                     machine.name, Counts(cell));
}

void CheckGpu(const JobContext& job, const ReplicaView& view, const MachineType& machine,
              const Accelerator& gpu, std::int64_t count, Violations& out) {
  const FieldPath path = view.accelerator_path();
  switch (machine.family) {
    case catalog::MachineFamily::kTpuHost:
      // TPU seed: a TPU host takes TPU_V2/TPU_V3 only.
      out.Add(path.Child("type"),
              fmt::format("{} is a TPU host and takes no GPU; accelerators "
                          "for {}: {}",
                          machine.name, machine.name, AttachableTo(job.catalog, machine)));
      return;
    case catalog::MachineFamily::kLegacy:
      // docs/reference/ai-platform-training.md §2.2/§4.4: acceleratorConfig only on Compute Engine
      // types; legacy GPU types (GPU seed: complex_model_m_gpu …) carry their GPUs built in.
      if (!machine.builtin_accelerator.empty()) {
        out.Add(path, fmt::format("{} is a legacy machine type with {} x {} built in and takes no "
                                  "acceleratorConfig; attach GPUs to a Compute Engine type "
                                  "such as {} instead",
                                  machine.name, machine.builtin_accelerator_count,
                                  machine.builtin_accelerator, machine.compute_engine_equivalent));
      } else {
        out.Add(path, fmt::format("{} is a legacy machine type and takes no acceleratorConfig; "
                                  "attach GPUs to a Compute Engine type such as {} instead",
                                  machine.name, machine.compute_engine_equivalent));
      }
      return;
    case catalog::MachineFamily::kComputeEngine:
      break;
  }
  const std::vector<int> cell = Cell(job.catalog, machine, gpu);
  // GPU seed: the compatibility table (no cell: the GPU cannot be attached at all).
  if (cell.empty()) {
    out.Add(path.Child("type"), NotAttachable(job.catalog, machine, gpu));
    return;
  }
  // GPU seed restrictions 1 and 2 (counts, vCPU/memory per GPU, 8 x K80 and 4 x P100 caps),
  // as the table encodes them; the rule model only explains the refusal.
  if (std::ranges::find(cell, count) == cell.end()) {
    out.Add(path.Child("count"), CountNotOffered(machine, gpu, count, cell));
  }
}

void CheckTpuAccelerator(const JobContext& job, const ReplicaView& view, const MachineType& machine,
                         const Accelerator& tpu, std::int64_t count, Violations& out) {
  const FieldPath path = view.accelerator_path();
  // TPU seed: TPU_V2/TPU_V3 go in the workerConfig of a cloud_tpu worker, nowhere else.
  if (view.role != Role::kWorker || machine.family != catalog::MachineFamily::kTpuHost) {
    std::vector<std::string> hosts;
    for (const MachineType& type : job.catalog.machine_types()) {
      if (type.family == catalog::MachineFamily::kTpuHost) {
        hosts.push_back(type.name);
      }
    }
    out.Add(path.Child("type"),
            fmt::format("{} can only be attached to a TPU worker (workerType {}); the {} uses {}",
                        tpu.name, fmt::join(hosts, " or "), view.noun, machine.name));
    return;
  }
  // TPU seed: "count 8; no other number of TPU cores can be given".
  std::vector<int> allowed = Cell(job.catalog, machine, tpu);
  if (allowed.empty()) {
    allowed = tpu.allowed_counts;
  }
  if (std::ranges::find(allowed, count) == allowed.end()) {
    out.Add(path.Child("count"), fmt::format("{} x {} is not offered; allowed counts: {}", count,
                                             tpu.name, Counts(allowed)));
  }
}

}  // namespace

void CheckAcceleratorConfigs(const JobContext& job, Violations& out) {
  if (!job.custom()) {
    return;  // Predefined tiers refuse acceleratorConfig as a whole (`CheckScaleTier`).
  }
  for (const ReplicaView& view : job.views) {
    const model::AcceleratorConfig* config = view.accelerator_config();
    if (config == nullptr) {
      continue;
    }
    const FieldPath path = view.accelerator_path();
    // docs/reference/ai-platform-training.md §2.3: the type names an accelerator the catalog
    // offers.
    if (!HasAcceleratorType(*config)) {
      out.Add(path.Child("type"),
              fmt::format("is required; accelerators: {}", AcceleratorNames(job.catalog)));
      continue;
    }
    const Accelerator* accelerator = job.catalog.FindAccelerator(config->type);
    if (accelerator == nullptr) {
      out.Add(path.Child("type"), fmt::format("unknown accelerator type '{}'; accelerators: {}",
                                              config->type, AcceleratorNames(job.catalog)));
      continue;
    }
    // docs/reference/ai-platform-training.md §2.3: count must be positive (gcloud refuses count <=
    // 0 itself).
    if (config->count <= 0) {
      out.Add(path.Child("count"), fmt::format("must be positive; got {}", config->count));
      continue;
    }
    // docs/reference/ai-platform-training.md §2.2: accelerators go on a machine type, so the role
    // needs its *Type (a master or a positive count without one is already reported by
    // `CheckScaleTier`).
    if (view.type.empty()) {
      if (view.role != Role::kMaster && view.count == 0) {
        out.Add(path, fmt::format("needs {} to attach to", view.type_path.leaf()));
      }
      continue;
    }
    const MachineType* machine = job.catalog.FindMachineType(view.type);
    if (machine == nullptr) {
      continue;  // Reported by `CheckMachineTypes`.
    }
    if (accelerator->kind == catalog::AcceleratorKind::kTpu) {
      CheckTpuAccelerator(job, view, *machine, *accelerator, config->count, out);
    } else {
      CheckGpu(job, view, *machine, *accelerator, config->count, out);
    }
  }
}

}  // namespace trainyard::validate
