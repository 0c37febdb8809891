// Catalog::Load: parses the six data files, checks them against each other, builds the indexes.
#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/json_reader.h"
#include "catalog/parse.h"

namespace trainyard::catalog {
namespace {

using Parser = Status (*)(std::string_view, const nlohmann::json&, internal::Parts&);

struct DataFile {
  std::string_view name;
  Parser parse;
};

constexpr std::array<DataFile, 6> kDataFiles = {{
    {internal::kMachineTypesFile, &internal::ParseMachineTypes},
    {internal::kAcceleratorsFile, &internal::ParseAccelerators},
    {internal::kAcceleratorCountsFile, &internal::ParseAcceleratorCounts},
    {internal::kRegionsFile, &internal::ParseRegions},
    {internal::kScaleTiersFile, &internal::ParseScaleTiers},
    {internal::kRuntimeVersionsFile, &internal::ParseRuntimeVersions},
}};

// "data/regions.json" -> "regions.json": callers may pass paths.
std::string_view BaseName(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

template <typename T, typename Key>
std::map<std::string, std::size_t, std::less<>> BuildIndex(const std::vector<T>& items, Key key) {
  std::map<std::string, std::size_t, std::less<>> index;
  for (std::size_t i = 0; i < items.size(); ++i) {
    index.emplace(std::invoke(key, items[i]), i);
  }
  return index;
}

Status ParseFiles(const std::vector<std::pair<std::string, std::string>>& files,
                  internal::Parts& parts) {
  for (const auto& [path, text] : files) {
    if (std::ranges::find(kDataFiles, BaseName(path), &DataFile::name) == kDataFiles.end()) {
      return Status::InvalidArgument(fmt::format("{}: not a catalog data file", path));
    }
  }
  for (const DataFile& data_file : kDataFiles) {
    const auto matches = [&](const auto& file) { return BaseName(file.first) == data_file.name; };
    const auto count = std::ranges::count_if(files, matches);
    if (count != 1) {
      return Status::InvalidArgument(fmt::format("{}: {} the catalog", data_file.name,
                                                 count == 0 ? "missing from" : "given twice to"));
    }
    const auto& [path, text] = *std::ranges::find_if(files, matches);
    Result<nlohmann::json> doc = internal::ParseJson(path, text);
    if (!doc.ok()) {
      return doc.status();
    }
    TY_RETURN_IF_ERROR(data_file.parse(data_file.name, *doc, parts));
  }
  return Status();
}

void DeriveRegionFlags(const std::vector<Accelerator>& accelerators, std::vector<Region>& regions) {
  for (Region& region : regions) {
    for (const Zone& zone : region.zones) {
      for (const std::string& name : zone.accelerators) {
        const auto it = std::ranges::find(accelerators, name, &Accelerator::name);
        (it->kind == AcceleratorKind::kTpu ? region.has_tpus : region.has_gpus) = true;
      }
    }
  }
}

}  // namespace

Result<Catalog> Catalog::Load(const std::vector<std::pair<std::string, std::string>>& files) {
  internal::Parts parts;
  TY_RETURN_IF_ERROR(ParseFiles(files, parts));
  TY_RETURN_IF_ERROR(internal::CheckCrossReferences(parts));
  DeriveRegionFlags(parts.accelerators, parts.regions);

  Catalog catalog;
  catalog.machine_types_ = std::move(parts.machine_types);
  catalog.accelerators_ = std::move(parts.accelerators);
  catalog.regions_ = std::move(parts.regions);
  catalog.scale_tiers_ = std::move(parts.scale_tiers);
  catalog.runtime_versions_ = std::move(parts.runtime_versions);
  catalog.allowed_counts_ = std::move(parts.allowed_counts);
  catalog.machine_type_index_ = BuildIndex(catalog.machine_types_, &MachineType::name);
  catalog.accelerator_index_ = BuildIndex(catalog.accelerators_, &Accelerator::name);
  catalog.accelerator_flag_index_ = BuildIndex(catalog.accelerators_, &Accelerator::flag_name);
  catalog.region_index_ = BuildIndex(catalog.regions_, &Region::name);
  catalog.scale_tier_index_ = BuildIndex(catalog.scale_tiers_, &ScaleTierSpec::name);
  catalog.scale_tier_flag_index_ = BuildIndex(catalog.scale_tiers_, &ScaleTierSpec::flag_name);
  catalog.runtime_version_index_ = BuildIndex(catalog.runtime_versions_, &RuntimeVersion::version);
  return catalog;
}

}  // namespace trainyard::catalog
