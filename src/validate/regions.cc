#include <algorithm>

#include <fmt/format.h>

#include "validate/rules.h"

namespace trainyard::validate {
namespace {

using catalog::Accelerator;
using catalog::Region;
using catalog::Zone;

// An accelerator the job uses and the first role that uses it, in replica order.
struct Use {
  const Accelerator* accelerator;
  std::string_view noun;
};

std::vector<Use> AcceleratorUses(const std::vector<RunningReplica>& running) {
  std::vector<Use> uses;
  for (const RunningReplica& replica : running) {
    if (replica.accelerator == nullptr) {
      continue;
    }
    if (std::ranges::none_of(uses,
                             [&](const Use& u) { return u.accelerator == replica.accelerator; })) {
      uses.push_back({replica.accelerator, replica.view->noun});
    }
  }
  return uses;
}

bool ZoneOffers(const Zone& zone, std::string_view accelerator) {
  return std::ranges::find(zone.accelerators, accelerator) != zone.accelerators.end();
}

bool RegionOffers(const Region& region, std::string_view accelerator) {
  return std::ranges::any_of(region.zones,
                             [&](const Zone& zone) { return ZoneOffers(zone, accelerator); });
}

std::string RegionsOffering(const catalog::Catalog& catalog, std::string_view accelerator) {
  std::vector<std::string> names;
  for (const Region& region : catalog.regions()) {
    if (RegionOffers(region, accelerator)) {
      names.push_back(region.name);
    }
  }
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

std::string RegionNames(const catalog::Catalog& catalog) {
  std::vector<std::string> names;
  for (const Region& region : catalog.regions()) {
    names.push_back(region.name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

// GPU seed: all GPU types of the job must be offered together by one zone of the region.
void CheckSameZone(const Region& region, const std::vector<Use>& gpus, const FieldPath& path,
                   Violations& out) {
  if (gpus.size() < 2) {
    return;
  }
  const auto offers_all = [&](const Zone& zone) {
    return std::ranges::all_of(gpus,
                               [&](const Use& u) { return ZoneOffers(zone, u.accelerator->name); });
  };
  if (std::ranges::any_of(region.zones, offers_all)) {
    return;
  }
  std::vector<std::string> wanted;
  wanted.reserve(gpus.size());
  for (const Use& use : gpus) {
    wanted.push_back(use.accelerator->name);
  }
  std::vector<std::string> zones;
  zones.reserve(region.zones.size());
  for (const Zone& zone : region.zones) {
    std::vector<std::string> has;
    for (const Use& use : gpus) {
      if (ZoneOffers(zone, use.accelerator->name)) {
        has.push_back(use.accelerator->name);
      }
    }
    zones.push_back(
        fmt::format("{} ({})", zone.name,
                    has.empty() ? std::string("none") : fmt::format("{}", fmt::join(has, ", "))));
  }
  out.Add(path, fmt::format("no zone of {} offers {} together; zones: {}", region.name,
                            JoinAnd(wanted), fmt::join(zones, ", ")));
}

}  // namespace

void CheckRegion(const JobContext& job, Violations& out) {
  const FieldPath path = job.path.Child("region");
  // docs/reference/ai-platform-training.md §2.8 #3: region is required.
  if (job.input.region.empty()) {
    out.Add(path, fmt::format("is required; regions: {}", RegionNames(job.catalog)));
    return;
  }
  // docs/reference/ai-platform-training.md §5.1: the region must be one the catalog knows.
  const Region* region = job.catalog.FindRegion(job.input.region);
  if (region == nullptr) {
    out.Add(path, fmt::format("unknown region '{}'; regions: {}", job.input.region,
                              RegionNames(job.catalog)));
    return;
  }
  const std::vector<Use> uses = AcceleratorUses(job.running);
  std::vector<Use> gpus;
  bool all_offered = true;
  for (const Use& use : uses) {
    // GPU seed restriction 3 (GPU regions) and TPU seed (TPU regions us-central1,
    // europe-west4): the region must offer each accelerator the job uses.
    if (!RegionOffers(*region, use.accelerator->name)) {
      all_offered = false;
      out.Add(path, fmt::format("{} offers no {} (used by the {}); regions offering it: {}",
                                region->name, use.accelerator->name, use.noun,
                                RegionsOffering(job.catalog, use.accelerator->name)));
    }
    // docs/reference/ai-platform-training.md §5.3: TPUs are placed separately and stay out of the
    // same-zone rule.
    if (use.accelerator->kind == catalog::AcceleratorKind::kGpu) {
      gpus.push_back(use);
    }
  }
  if (all_offered) {
    CheckSameZone(*region, gpus, path, out);
  }
}

}  // namespace trainyard::validate
