#include "cli/commands/labels_update.h"

#include <utility>

#include "cli/commands/flag_values.h"

namespace trainyard::cli {

Result<LabelsDiff> ParseLabelsDiff(const std::vector<std::string>& update_labels,
                                   const std::vector<std::string>& remove_labels, bool clear) {
  if (clear && !remove_labels.empty()) {
    return Status::InvalidArgument(
        "argument --clear-labels: At most one of --clear-labels | --remove-labels can be "
        "specified.");
  }
  LabelsDiff diff{.clear = clear};
  auto additions = MergeLabelFlags(update_labels, "--update-labels");
  if (!additions.ok()) {
    return additions.status();
  }
  diff.additions = *std::move(additions);
  for (const std::string& value : remove_labels) {
    for (std::string& key : SplitList(value)) {
      diff.removals.push_back(std::move(key));
    }
  }
  return diff;
}

LabelsUpdate ApplyLabelsDiff(const LabelsDiff& diff, const model::Labels& existing) {
  model::Labels labels = diff.clear ? model::Labels() : existing;
  for (const auto& [key, value] : diff.additions) {
    labels[key] = value;
  }
  for (const std::string& key : diff.removals) {
    labels.erase(key);
  }
  const bool needs_update = labels != existing;
  return {.needs_update = needs_update, .labels = std::move(labels)};
}

}  // namespace trainyard::cli
