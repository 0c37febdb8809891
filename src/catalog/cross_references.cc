// Checks that need more than one entry: duplicate names, and names one data file uses that
// another must define (a zone's accelerators, a table cell's machine type, built-in GPUs, …).
#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "catalog/json_reader.h"
#include "catalog/parse.h"

namespace trainyard::catalog::internal {
namespace {

// The first name `key` gives twice among `items`, reported against `file`.
template <typename T, typename Key>
Status CheckUnique(std::string_view file, std::string_view what, const std::vector<T>& items,
                   Key key) {
  std::set<std::string, std::less<>> seen;
  for (const T& item : items) {
    const std::string& name = std::invoke(key, item);
    if (!seen.insert(name).second) {
      return EntryError(fmt::format("{}: \"{}\"", file, name), fmt::format("duplicate {}", what));
    }
  }
  return Status();
}

template <typename T>
const T* FindByName(const std::vector<T>& items, std::string_view name) {
  const auto it = std::ranges::find(items, name, &T::name);
  return it == items.end() ? nullptr : &*it;
}

Status CheckUniqueNames(const Parts& parts) {
  TY_RETURN_IF_ERROR(
      CheckUnique(kMachineTypesFile, "machine type name", parts.machine_types, &MachineType::name));
  TY_RETURN_IF_ERROR(
      CheckUnique(kAcceleratorsFile, "accelerator name", parts.accelerators, &Accelerator::name));
  TY_RETURN_IF_ERROR(CheckUnique(kAcceleratorsFile, "accelerator flag_name", parts.accelerators,
                                 &Accelerator::flag_name));
  TY_RETURN_IF_ERROR(CheckUnique(kRegionsFile, "region name", parts.regions, &Region::name));
  std::vector<Zone> zones;
  for (const Region& region : parts.regions) {
    zones.insert(zones.end(), region.zones.begin(), region.zones.end());
  }
  TY_RETURN_IF_ERROR(CheckUnique(kRegionsFile, "zone name", zones, &Zone::name));
  TY_RETURN_IF_ERROR(
      CheckUnique(kScaleTiersFile, "scale tier name", parts.scale_tiers, &ScaleTierSpec::name));
  TY_RETURN_IF_ERROR(CheckUnique(kScaleTiersFile, "scale tier flag_name", parts.scale_tiers,
                                 &ScaleTierSpec::flag_name));
  return CheckUnique(kRuntimeVersionsFile, "runtime version", parts.runtime_versions,
                     &RuntimeVersion::version);
}

Status CheckMachineTypes(const Parts& parts) {
  for (const MachineType& type : parts.machine_types) {
    const std::string where = fmt::format("{}: \"{}\"", kMachineTypesFile, type.name);
    if (!type.builtin_accelerator.empty()) {
      const Accelerator* builtin = FindByName(parts.accelerators, type.builtin_accelerator);
      if (builtin == nullptr) {
        return EntryError(where, fmt::format("builtin_accelerator \"{}\" is not in {}",
                                             type.builtin_accelerator, kAcceleratorsFile));
      }
      if ((builtin->kind == AcceleratorKind::kTpu) != (type.family == MachineFamily::kTpuHost)) {
        return EntryError(where, "TPUs come only with tpu_host types, and GPUs not with them");
      }
    }
  }
  return Status();
}

// No pattern of one accelerator may match a pattern of another, so a device name that matches
// one accelerator's pattern exactly cannot also match another's.
Status CheckDeviceNamePatterns(const Parts& parts) {
  for (const Accelerator& a : parts.accelerators) {
    for (const Accelerator& b : parts.accelerators) {
      if (&a == &b) {
        continue;
      }
      for (const std::string& pattern : a.device_name_patterns) {
        for (const std::string& other : b.device_name_patterns) {
          if (DeviceNameMatches(pattern, other)) {
            return EntryError(fmt::format("{}: \"{}\"", kAcceleratorsFile, a.name),
                              fmt::format("device name pattern \"{}\" also matches \"{}\" of {}",
                                          pattern, other, b.name));
          }
        }
      }
    }
  }
  return Status();
}

Status CheckCountCell(const MachineType& type, const Accelerator& accelerator,
                      const std::vector<int>& counts, const std::string& where) {
  if (type.family == MachineFamily::kLegacy) {
    return EntryError(where, "accelerators cannot be attached to legacy machine types");
  }
  const bool tpu_host = type.family == MachineFamily::kTpuHost;
  if ((accelerator.kind == AcceleratorKind::kTpu) != tpu_host) {
    return EntryError(where, "TPUs attach only to tpu_host types, and GPUs not to them");
  }
  if (!tpu_host && !type.builtin_accelerator.empty() &&
      type.builtin_accelerator != accelerator.name) {
    return EntryError(where,
                      fmt::format("{} carries {} only", type.name, type.builtin_accelerator));
  }
  if (accelerator.builtin_only) {
    if (type.builtin_accelerator != accelerator.name) {
      return EntryError(where, fmt::format("{} comes only built into machine types; {} does not "
                                           "carry it",
                                           accelerator.name, type.name));
    }
    if (counts != std::vector<int>{type.builtin_accelerator_count}) {
      return EntryError(where, fmt::format("the cell must be [{}], the type's built-in count",
                                           type.builtin_accelerator_count));
    }
    return Status();
  }
  for (const int count : counts) {
    if (std::ranges::find(accelerator.allowed_counts, count) == accelerator.allowed_counts.end()) {
      return EntryError(
          where, fmt::format("count {} is not among {}'s allowed_counts", count, accelerator.name));
    }
  }
  return Status();
}

Status CheckCountTable(const Parts& parts) {
  for (const std::string& column : parts.count_columns) {
    if (FindByName(parts.accelerators, column) == nullptr) {
      return EntryError(fmt::format("{}: columns", kAcceleratorCountsFile),
                        fmt::format("\"{}\" is not in {}", column, kAcceleratorsFile));
    }
  }
  for (const auto& [machine_type, row] : parts.allowed_counts) {
    const MachineType* type = FindByName(parts.machine_types, machine_type);
    if (type == nullptr) {
      return EntryError(fmt::format("{}: \"{}\"", kAcceleratorCountsFile, machine_type),
                        fmt::format("machine type is not in {}", kMachineTypesFile));
    }
    for (const auto& [name, counts] : row) {
      const std::string where =
          fmt::format("{}: \"{}\" / \"{}\"", kAcceleratorCountsFile, machine_type, name);
      const Accelerator* accelerator = FindByName(parts.accelerators, name);
      if (accelerator == nullptr) {
        return EntryError(where, fmt::format("accelerator is not in {}", kAcceleratorsFile));
      }
      TY_RETURN_IF_ERROR(CheckCountCell(*type, *accelerator, counts, where));
    }
  }
  return Status();
}

Status CheckRegionsAndTiers(const Parts& parts) {
  for (const Region& region : parts.regions) {
    for (const Zone& zone : region.zones) {
      for (const std::string& name : zone.accelerators) {
        if (FindByName(parts.accelerators, name) == nullptr) {
          return EntryError(
              fmt::format("{}: zone \"{}\"", kRegionsFile, zone.name),
              fmt::format("accelerator \"{}\" is not in {}", name, kAcceleratorsFile));
        }
      }
    }
  }
  for (const ScaleTierSpec& tier : parts.scale_tiers) {
    for (const std::string* type :
         {&tier.master_type, &tier.worker_type, &tier.parameter_server_type}) {
      if (!type->empty() && FindByName(parts.machine_types, *type) == nullptr) {
        return EntryError(
            fmt::format("{}: \"{}\"", kScaleTiersFile, tier.name),
            fmt::format("machine type \"{}\" is not in {}", *type, kMachineTypesFile));
      }
    }
  }
  return Status();
}

}  // namespace

Status CheckCrossReferences(const Parts& parts) {
  TY_RETURN_IF_ERROR(CheckUniqueNames(parts));
  TY_RETURN_IF_ERROR(CheckMachineTypes(parts));
  TY_RETURN_IF_ERROR(CheckDeviceNamePatterns(parts));
  TY_RETURN_IF_ERROR(CheckCountTable(parts));
  return CheckRegionsAndTiers(parts);
}

}  // namespace trainyard::catalog::internal
