// DemandOf: what one replica of a machine type takes from a node.
#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "sched/placement.h"

namespace trainyard::sched {
namespace {

// Catalog sizes are decimal GB as Google lists them (14.4); a node's memory is MiB. The small
// epsilon keeps an exact product (52 × 1024) from rounding up through floating-point noise.
std::int64_t MemoryMib(double memory_gb) {
  return static_cast<std::int64_t>(std::ceil(memory_gb * 1024.0 - 1e-6));
}

}  // namespace

Result<ReplicaDemand> DemandOf(std::string task_name, std::string_view machine_type,
                               std::string_view accelerator, int accelerator_count,
                               const catalog::Catalog& catalog) {
  const catalog::MachineType* machine = catalog.FindMachineType(machine_type);
  if (machine == nullptr) {
    return Status::InvalidArgument(
        fmt::format("{}: unknown machine type {}", task_name, machine_type));
  }
  if (accelerator.empty() && accelerator_count != 0) {
    return Status::InvalidArgument(
        fmt::format("{}: {} accelerators of no type", task_name, accelerator_count));
  }
  if (!accelerator.empty() && accelerator_count <= 0) {
    return Status::InvalidArgument(fmt::format("{}: the count of {} must be positive; got {}",
                                               task_name, accelerator, accelerator_count));
  }
  if (!accelerator.empty() && catalog.FindAccelerator(accelerator) == nullptr) {
    return Status::InvalidArgument(
        fmt::format("{}: unknown accelerator type {}", task_name, accelerator));
  }
  ReplicaDemand demand{.task_name = std::move(task_name),
                       .machine_type = machine->name,
                       .cpus = machine->vcpus,
                       .memory_mib = MemoryMib(machine->memory_gb),
                       .accelerator = std::string(accelerator),
                       .accelerator_count = accelerator_count};
  if (machine->builtin_accelerator.empty()) {
    return demand;
  }
  // GPU and TPU seeds: the built-in devices come with the type. The count table may offer
  // another type in their place (cloud_tpu takes TPU_V3 × 8 instead of its TPU_V2).
  if (accelerator.empty() || accelerator == machine->builtin_accelerator) {
    demand.accelerator = machine->builtin_accelerator;
    demand.accelerator_count = machine->builtin_accelerator_count;
    return demand;
  }
  if (catalog.AllowedAcceleratorCounts(machine->name, accelerator) != nullptr) {
    return demand;
  }
  return Status::InvalidArgument(
      fmt::format("{}: {} comes with {} × {} and takes no {}", demand.task_name, machine->name,
                  machine->builtin_accelerator_count, machine->builtin_accelerator, accelerator));
}

}  // namespace trainyard::sched
