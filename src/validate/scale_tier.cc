#include <fmt/format.h>

#include "validate/rules.h"

namespace trainyard::validate {
namespace {

// docs/reference/ai-platform-training.md §2.8 #6 asks for a "sane" bound; Google's is unknown. A
// typo such as 10000 workers is caught here instead of waiting for capacity forever.
constexpr std::int64_t kMaxReplicaCount = 1000;

// The tiers a request may name: the catalog's, and CUSTOM, which needs no spec.
std::string TierNames(const catalog::Catalog& catalog) {
  const std::string_view custom = model::ScaleTierName(model::ScaleTier::kCustom);
  std::vector<std::string> names;
  for (const catalog::ScaleTierSpec& tier : catalog.scale_tiers()) {
    if (tier.name != custom) {
      names.push_back(tier.name);
    }
  }
  names.emplace_back(custom);
  return fmt::format("{}", fmt::join(names, ", "));
}

void CheckPredefinedTier(const JobContext& job, Violations& out) {
  const std::string_view tier = model::ScaleTierName(job.input.scale_tier);
  // docs/reference/ai-platform-training.md §3: a predefined tier must be one this installation's
  // catalog defines.
  if (job.catalog.FindScaleTier(tier) == nullptr) {
    out.Add(job.path.Child("scaleTier"), fmt::format("scale tier {} is not offered here; tiers: {}",
                                                     tier, TierNames(job.catalog)));
  }
  for (const ReplicaView& view : job.views) {
    // docs/reference/ai-platform-training.md §3: a predefined tier chooses the machines; *Type and
    // *Count need CUSTOM.
    if (!view.type.empty()) {
      out.Add(view.type_path, fmt::format("scaleTier {} chooses the machine types; {} is allowed "
                                          "only with scaleTier CUSTOM",
                                          tier, view.type_path.leaf()));
    }
    if (view.has_count_field() && view.count != 0) {
      out.Add(view.count_path, fmt::format("scaleTier {} chooses the replica counts; {} is allowed "
                                           "only with scaleTier CUSTOM",
                                           tier, view.count_path.leaf()));
    }
    // docs/reference/ai-platform-training.md §2.2 and GPU seed: attaching accelerators needs CUSTOM
    // with CE machine types.
    if (view.accelerator_config() != nullptr) {
      out.Add(
          view.accelerator_path(),
          fmt::format("scaleTier {} chooses the accelerators; acceleratorConfig is allowed only "
                      "with scaleTier CUSTOM",
                      tier));
    }
  }
}

void CheckCustomTier(const JobContext& job, Violations& out) {
  const ReplicaView& master = job.views[0];
  // docs/reference/ai-platform-training.md §2.2: masterType is required when scaleTier is CUSTOM.
  if (master.type.empty()) {
    out.Add(master.type_path, "is required when scaleTier is CUSTOM");
  }
  for (const ReplicaView& view : job.views) {
    if (!view.has_count_field()) {
      continue;
    }
    // docs/reference/ai-platform-training.md §2.8 #6: counts are never negative.
    if (view.count < 0) {
      out.Add(view.count_path, fmt::format("must not be negative; got {}", view.count));
    } else if (view.count > kMaxReplicaCount) {
      // docs/reference/ai-platform-training.md §2.8 #6 (bound chosen by trainyard, see
      // `kMaxReplicaCount`).
      out.Add(view.count_path, fmt::format("{} replicas requested; at most {} are allowed",
                                           view.count, kMaxReplicaCount));
    } else if (view.count > 0 && view.type.empty()) {
      // docs/reference/ai-platform-training.md §2.2: a positive count needs its machine type.
      out.Add(view.type_path,
              fmt::format("is required when {} is {}", view.count_path.leaf(), view.count));
    }
  }
}

}  // namespace

void CheckScaleTier(const JobContext& job, Violations& out) {
  if (job.custom()) {
    CheckCustomTier(job, out);
  } else {
    CheckPredefinedTier(job, out);
  }
}

}  // namespace trainyard::validate
