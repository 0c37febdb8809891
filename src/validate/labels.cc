#include <fmt/format.h>

#include "validate/formats.h"
#include "validate/rules.h"

namespace trainyard::validate {
namespace {

constexpr std::size_t kMaxLabels = 64;

}  // namespace

void CheckLabels(const model::Labels& labels, Violations& out) {
  const FieldPath path = FieldPath().Child("labels");
  // docs/reference/ai-platform-training.md §2.8 #15 (GCP label rules): at most 64 labels.
  if (labels.size() > kMaxLabels) {
    out.Add(path,
            fmt::format("{} labels given; at most {} are allowed", labels.size(), kMaxLabels));
  }
  for (const auto& [key, value] : labels) {
    // docs/reference/ai-platform-training.md §2.8 #15: keys are 1-63 lowercase letters, digits, '_'
    // or '-', starting with a lowercase letter.
    if (!IsLabelKey(key)) {
      out.Add(path, fmt::format("label key '{}' is invalid: use 1-{} lowercase letters, digits, "
                                "'_' or '-', starting with a lowercase letter",
                                key, kMaxLabelLength));
    }
    // docs/reference/ai-platform-training.md §2.8 #15: values are at most 63 lowercase letters,
    // digits, '_' or '-'.
    if (!IsLabelValue(value)) {
      out.Add(path, fmt::format("value '{}' of label '{}' is invalid: use at most {} lowercase "
                                "letters, digits, '_' or '-'",
                                value, key, kMaxLabelLength));
    }
  }
}

}  // namespace trainyard::validate
