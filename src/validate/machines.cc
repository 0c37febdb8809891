#include <fmt/format.h>

#include "validate/rules.h"

namespace trainyard::validate {
namespace {

std::string MachineTypeNames(const catalog::Catalog& catalog) {
  std::vector<std::string> names;
  for (const catalog::MachineType& type : catalog.machine_types()) {
    names.push_back(type.name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string_view CategoryName(catalog::MachineFamily family) {
  return family == catalog::MachineFamily::kLegacy ? "a legacy machine type"
                                                   : "a Compute Engine machine type";
}

}  // namespace

void CheckMachineTypes(const JobContext& job, Violations& out) {
  if (!job.custom()) {
    return;  // Predefined tiers: the types are refused as a whole by `CheckScaleTier`.
  }
  const catalog::MachineType* master = nullptr;
  for (const ReplicaView& view : job.views) {
    if (view.type.empty()) {
      continue;
    }
    const catalog::MachineType* machine = job.catalog.FindMachineType(view.type);
    // docs/reference/ai-platform-training.md §4.1/§4.2: machine types are the legacy and Compute
    // Engine types offered.
    if (machine == nullptr) {
      out.Add(view.type_path, fmt::format("unknown machine type '{}'; machine types: {}", view.type,
                                          MachineTypeNames(job.catalog)));
      continue;
    }
    if (view.role == Role::kMaster) {
      master = machine;
      continue;
    }
    // TPU hosts are the one allowed mix (docs/reference/ai-platform-training.md §4.2); their role
    // rules live in tpu.cc.
    if (master == nullptr || master->family == catalog::MachineFamily::kTpuHost ||
        machine->family == catalog::MachineFamily::kTpuHost) {
      continue;
    }
    // docs/reference/ai-platform-training.md §2.2/§2.8 #7: worker, ps and evaluator types in the
    // master's category.
    if (machine->family != master->family) {
      out.Add(view.type_path,
              fmt::format("{} is {} but masterType {} is {}; the {} must use the master's kind "
                          "of machine type (legacy or Compute Engine)",
                          machine->name, CategoryName(machine->family), master->name,
                          CategoryName(master->family), view.noun));
    }
  }
}

}  // namespace trainyard::validate
