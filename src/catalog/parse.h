// Internal to catalog/: turns each data file into the catalog's structs.
//
// Each parser checks what one entry can check on its own (types, ranges, required fields, the
// flag spelling); `CheckCrossReferences` then checks the names one file uses from another and
// duplicates. Errors are INVALID_ARGUMENT naming the file and the entry.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/status.h"
#include "catalog/catalog.h"
#include "catalog/json_reader.h"

namespace trainyard::catalog::internal {

inline constexpr std::string_view kMachineTypesFile = "machine_types.json";
inline constexpr std::string_view kAcceleratorsFile = "accelerators.json";
inline constexpr std::string_view kAcceleratorCountsFile = "accelerator_counts.json";
inline constexpr std::string_view kRegionsFile = "regions.json";
inline constexpr std::string_view kScaleTiersFile = "scale_tiers.json";
inline constexpr std::string_view kRuntimeVersionsFile = "runtime_versions.json";

// machine type -> accelerator -> allowed counts
using CountTable =
    std::map<std::string, std::map<std::string, std::vector<int>, std::less<>>, std::less<>>;

// Everything the data files say, before indexing.
struct Parts {
  std::vector<MachineType> machine_types;
  std::vector<Accelerator> accelerators;
  std::vector<std::string> count_columns;  // the seed table's accelerator columns
  CountTable allowed_counts;
  std::vector<Region> regions;
  std::vector<ScaleTierSpec> scale_tiers;
  std::vector<RuntimeVersion> runtime_versions;
};

Status ParseMachineTypes(std::string_view file, const nlohmann::json& doc, Parts& parts);
Status ParseAccelerators(std::string_view file, const nlohmann::json& doc, Parts& parts);
Status ParseAcceleratorCounts(std::string_view file, const nlohmann::json& doc, Parts& parts);
Status ParseRegions(std::string_view file, const nlohmann::json& doc, Parts& parts);
Status ParseScaleTiers(std::string_view file, const nlohmann::json& doc, Parts& parts);
Status ParseRuntimeVersions(std::string_view file, const nlohmann::json& doc, Parts& parts);

// Duplicate names and names one file uses that another must define.
Status CheckCrossReferences(const Parts& parts);

// Whether `pattern` occurs in `device_name` as whole words (the characters on either side are
// not letters or digits), ignoring ASCII case.
bool DeviceNameMatches(std::string_view pattern, std::string_view device_name);

}  // namespace trainyard::catalog::internal
