// Parsers for regions.json, scale_tiers.json and runtime_versions.json.
#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog/json_reader.h"
#include "catalog/parse.h"

namespace trainyard::catalog::internal {
namespace {

void ReadRegion(ObjectReader& in, std::vector<Region>& out) {
  Region region;
  region.name = in.String("name");
  in.Name(region.name);
  const nlohmann::json* zones = in.Array("zones", /*required=*/true);
  if (zones == nullptr) {
    return;
  }
  if (zones->empty()) {
    in.Fail("a region needs at least one zone");
  }
  for (std::size_t i = 0; i < zones->size(); ++i) {
    ObjectReader zone_in((*zones)[i], fmt::format("zones[{}]", i));
    Zone zone;
    zone.name = zone_in.String("name");
    zone_in.Name(zone.name);
    zone.accelerators = zone_in.StringList("accelerators", /*required=*/true);
    if (!zone.name.starts_with(region.name + "-")) {
      zone_in.Fail(fmt::format("a zone's name starts with its region's, \"{}-\"", region.name));
    }
    std::vector<std::string> sorted = zone.accelerators;
    std::ranges::sort(sorted);
    if (std::ranges::adjacent_find(sorted) != sorted.end()) {
      zone_in.Fail("an accelerator is listed twice");
    }
    if (Status status = zone_in.Finish(); !status.ok()) {
      in.Fail(status.message());
    }
    region.zones.push_back(std::move(zone));
  }
  out.push_back(std::move(region));
}

void ReadScaleTier(ObjectReader& in, std::vector<ScaleTierSpec>& out) {
  ScaleTierSpec tier;
  tier.name = in.String("name");
  in.Name(tier.name);
  tier.flag_name = in.String("flag_name");
  if (!tier.name.empty() && !tier.flag_name.empty() && tier.flag_name != FlagSpelling(tier.name)) {
    in.Fail(
        fmt::format("flag_name \"{}\" should be \"{}\"", tier.flag_name, FlagSpelling(tier.name)));
  }
  tier.master_type = in.OptionalString("master_type");
  tier.worker_type = in.OptionalString("worker_type");
  tier.worker_count = in.OptionalInt("worker_count", 1);
  tier.parameter_server_type = in.OptionalString("parameter_server_type");
  tier.parameter_server_count = in.OptionalInt("parameter_server_count", 1);
  tier.description = in.String("description");
  if (tier.worker_type.empty() != (tier.worker_count == 0)) {
    in.Fail("worker_type and worker_count go together");
  }
  if (tier.parameter_server_type.empty() != (tier.parameter_server_count == 0)) {
    in.Fail("parameter_server_type and parameter_server_count go together");
  }
  if (tier.master_type.empty() &&
      !(tier.worker_type.empty() && tier.parameter_server_type.empty())) {
    in.Fail("a tier with workers or parameter servers needs a master_type");
  }
  out.push_back(std::move(tier));
}

void ReadRuntimeVersion(ObjectReader& in, std::vector<RuntimeVersion>& out) {
  RuntimeVersion runtime;
  runtime.version = in.String("version");
  in.Name(runtime.version);
  runtime.python_versions = in.StringList("python_versions", /*required=*/true);
  if (runtime.python_versions.empty()) {
    in.Fail("python_versions is empty");
  }
  runtime.tpu = in.Bool("tpu");
  runtime.chief_in_tf_config = in.Bool("chief_in_tf_config");
  out.push_back(std::move(runtime));
}

}  // namespace

Status ParseRegions(std::string_view file, const nlohmann::json& doc, Parts& parts) {
  return ForEachEntry(file, doc, "regions",
                      [&](ObjectReader& in) { ReadRegion(in, parts.regions); });
}

Status ParseScaleTiers(std::string_view file, const nlohmann::json& doc, Parts& parts) {
  return ForEachEntry(file, doc, "scale_tiers",
                      [&](ObjectReader& in) { ReadScaleTier(in, parts.scale_tiers); });
}

Status ParseRuntimeVersions(std::string_view file, const nlohmann::json& doc, Parts& parts) {
  return ForEachEntry(file, doc, "runtime_versions",
                      [&](ObjectReader& in) { ReadRuntimeVersion(in, parts.runtime_versions); });
}

}  // namespace trainyard::catalog::internal
