#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/format.h>

#include "validate/rules.h"

namespace trainyard::validate {
namespace {

// docs/reference/ai-platform-training.md §2.3: the boot disk types of `DiskConfig`.
constexpr std::array<std::string_view, 2> kBootDiskTypes = {"pd-ssd", "pd-standard"};
// docs/reference/ai-platform-training.md §2.8 #16 leaves Google's upper bound unknown; 64000 GB is
// Compute Engine's largest persistent disk.
constexpr std::int32_t kMaxBootDiskSizeGb = 64000;

}  // namespace

void CheckDisks(const JobContext& job, Violations& out) {
  for (const ReplicaView& view : job.views) {
    if (view.config == nullptr || !view.config->disk_config) {
      continue;
    }
    const model::DiskConfig& disk = *view.config->disk_config;
    const FieldPath path = view.config_path.Child("diskConfig");
    // docs/reference/ai-platform-training.md §2.8 #16: bootDiskType in {pd-ssd, pd-standard}; empty
    // means pd-ssd.
    if (!disk.boot_disk_type.empty() && std::find(kBootDiskTypes.begin(), kBootDiskTypes.end(),
                                                  disk.boot_disk_type) == kBootDiskTypes.end()) {
      out.Add(path.Child("bootDiskType"),
              fmt::format("unknown boot disk type '{}'; types: {}", disk.boot_disk_type,
                          fmt::join(kBootDiskTypes, ", ")));
    }
    // docs/reference/ai-platform-training.md §2.8 #16: a positive size (0 means the default, 100
    // GB), bounded above.
    if (disk.boot_disk_size_gb < 0 || disk.boot_disk_size_gb > kMaxBootDiskSizeGb) {
      out.Add(path.Child("bootDiskSizeGb"),
              fmt::format("must be between 1 and {} GB; got {}", kMaxBootDiskSizeGb,
                          disk.boot_disk_size_gb));
    }
  }
}

}  // namespace trainyard::validate
