// `trainyard catalog machine-types|accelerators|regions|scale-tiers [--format table|json]`.
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.h"
#include "cli/output/table.h"

namespace trainyard::cli {
namespace {

using nlohmann::ordered_json;

// One listing: table headers and rows, and the same entries as JSON objects.
struct Listing {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  ordered_json json = ordered_json::array();
};

std::string FamilyName(catalog::MachineFamily family) {
  switch (family) {
    case catalog::MachineFamily::kLegacy:
      return "legacy";
    case catalog::MachineFamily::kComputeEngine:
      return "compute-engine";
    case catalog::MachineFamily::kTpuHost:
      return "tpu-host";
  }
  return "";
}

std::string Accelerators(int count, const std::string& name) {
  return count > 0 ? fmt::format("{} x {}", count, name) : "";
}

Listing MachineTypes(const catalog::Catalog& catalog) {
  Listing listing{.headers = {"NAME", "FAMILY", "CPUS", "MEMORY_GB", "ACCELERATORS"}};
  for (const catalog::MachineType& m : catalog.machine_types()) {
    const std::string accelerators =
        Accelerators(m.builtin_accelerator_count, m.builtin_accelerator);
    listing.rows.push_back({m.name, FamilyName(m.family),
                            m.vcpus > 0 ? std::to_string(m.vcpus) : "",
                            m.memory_gb > 0 ? fmt::format("{}", m.memory_gb) : "", accelerators});
    listing.json.push_back({{"name", m.name},
                            {"family", FamilyName(m.family)},
                            {"vcpus", m.vcpus},
                            {"memoryGb", m.memory_gb},
                            {"builtinAccelerator", m.builtin_accelerator},
                            {"builtinAcceleratorCount", m.builtin_accelerator_count},
                            {"computeEngineEquivalent", m.compute_engine_equivalent},
                            {"description", m.description}});
  }
  return listing;
}

Listing AcceleratorList(const catalog::Catalog& catalog) {
  Listing listing{
      .headers = {"NAME", "FLAG_VALUE", "KIND", "MEMORY_GB", "ALLOWED_COUNTS", "IN_ML_V1_API"}};
  for (const catalog::Accelerator& a : catalog.accelerators()) {
    const std::string kind = a.kind == catalog::AcceleratorKind::kGpu ? "GPU" : "TPU";
    const std::string counts = a.builtin_only ? "built into machine type"
                                              : fmt::format("{}", fmt::join(a.allowed_counts, ","));
    listing.rows.push_back({a.name, a.flag_name, kind,
                            a.device_memory_gb > 0 ? fmt::format("{}", a.device_memory_gb) : "",
                            counts, a.in_api_enum ? "yes" : "no"});
    listing.json.push_back({{"name", a.name},
                            {"flagValue", a.flag_name},
                            {"kind", kind},
                            {"displayName", a.display_name},
                            {"deviceMemoryGb", a.device_memory_gb},
                            {"allowedCounts", a.allowed_counts},
                            {"builtinOnly", a.builtin_only},
                            {"inMlV1Api", a.in_api_enum}});
  }
  return listing;
}

Listing Regions(const catalog::Catalog& catalog) {
  Listing listing{.headers = {"NAME", "GPUS", "TPUS", "ZONES"}};
  for (const catalog::Region& r : catalog.regions()) {
    std::vector<std::string> zones;
    ordered_json zone_json = ordered_json::array();
    for (const catalog::Zone& z : r.zones) {
      zones.push_back(z.name);
      zone_json.push_back({{"name", z.name}, {"accelerators", z.accelerators}});
    }
    listing.rows.push_back({r.name, r.has_gpus ? "yes" : "no", r.has_tpus ? "yes" : "no",
                            fmt::format("{}", fmt::join(zones, ","))});
    listing.json.push_back(
        {{"name", r.name}, {"hasGpus", r.has_gpus}, {"hasTpus", r.has_tpus}, {"zones", zone_json}});
  }
  return listing;
}

std::string Replicas(int count, const std::string& type) {
  return count > 0 ? fmt::format("{} x {}", count, type) : "";
}

Listing ScaleTiers(const catalog::Catalog& catalog) {
  Listing listing{
      .headers = {"NAME", "FLAG_VALUE", "MASTER", "WORKERS", "PARAMETER_SERVERS", "DESCRIPTION"}};
  for (const catalog::ScaleTierSpec& t : catalog.scale_tiers()) {
    listing.rows.push_back(
        {t.name, t.flag_name, t.master_type, Replicas(t.worker_count, t.worker_type),
         Replicas(t.parameter_server_count, t.parameter_server_type), t.description});
    listing.json.push_back({{"name", t.name},
                            {"flagValue", t.flag_name},
                            {"masterType", t.master_type},
                            {"workerType", t.worker_type},
                            {"workerCount", t.worker_count},
                            {"parameterServerType", t.parameter_server_type},
                            {"parameterServerCount", t.parameter_server_count},
                            {"description", t.description}});
  }
  return listing;
}

}  // namespace

int RunCatalogListing(std::string_view name, std::string_view format,
                      const catalog::Catalog& catalog, std::ostream& out, std::ostream& err) {
  const std::string command = fmt::format("trainyard.catalog.{}", name);
  if (format != "table" && format != "json") {
    err << "ERROR: (" << command << ") argument --format: Invalid choice: '" << format
        << "'. Valid choices are [json, table].\n";
    return 1;
  }
  Listing listing;
  if (name == "machine-types") {
    listing = MachineTypes(catalog);
  } else if (name == "accelerators") {
    listing = AcceleratorList(catalog);
  } else if (name == "regions") {
    listing = Regions(catalog);
  } else {
    listing = ScaleTiers(catalog);
  }
  if (format == "json") {
    out << listing.json.dump(2, ' ', false, ordered_json::error_handler_t::replace) << "\n";
  } else {
    out << FormatTable(listing.headers, listing.rows);
  }
  return 0;
}

}  // namespace trainyard::cli
