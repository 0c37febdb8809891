#include <fmt/format.h>

#include "validate/rules.h"

namespace trainyard::validate {

void CheckContainers(const JobContext& job, Violations& out) {
  for (const ReplicaView& view : job.views) {
    if (view.config == nullptr) {
      continue;
    }
    // docs/reference/ai-platform-training.md §2.2: worker, ps and evaluator images fall back to the
    // master's; without a master image the master runs a runtime version, and trainyard does not
    // mix the two.
    if (view.role != Role::kMaster && !view.config->image_uri.empty() && !job.container_job()) {
      out.Add(view.config_path.Child("imageUri"),
              fmt::format("needs masterConfig.imageUri: a job whose master runs a runtime version "
                          "cannot give the {} a custom container",
                          view.noun));
    }
    const bool has_image = !EffectiveImage(view, job.input).empty();
    const std::pair<std::string_view, const std::vector<std::string>*> fields[] = {
        {"containerCommand", &view.config->container_command},
        {"containerArgs", &view.config->container_args},
    };
    for (const auto& [name, values] : fields) {
      if (values->empty()) {
        continue;
      }
      const FieldPath path = view.config_path.Child(name);
      if (!has_image) {
        // docs/reference/ai-platform-training.md §2.3/§2.8 #10: containerCommand/containerArgs only
        // with imageUri.
        out.Add(path, fmt::format("is allowed only for a custom container: set {} or "
                                  "masterConfig.imageUri",
                                  view.config_path.Child("imageUri").str()));
      } else if (!job.input.args.empty()) {
        // docs/reference/ai-platform-training.md §2.2/§2.8 #10: never together with
        // trainingInput.args.
        out.Add(path,
                "cannot be combined with trainingInput.args; put the arguments in "
                "containerArgs instead");
      }
    }
  }
}

}  // namespace trainyard::validate
