// `jobs update`'s label flags and the new label map they give, as gcloud 528 computes it on the
// client (command_lib/util/args/labels_util.py Diff): clear first, then add or replace, then
// remove; the server then gets the whole new map (docs/reference/ai-platform-training.md §1.4).
// Pure and thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/job.h"

namespace trainyard::cli {

struct LabelsDiff {
  model::Labels additions;            // --update-labels
  std::vector<std::string> removals;  // --remove-labels
  bool clear = false;                 // --clear-labels

  bool MayHaveUpdates() const { return !additions.empty() || !removals.empty() || clear; }
};

// The flags' values, one entry per occurrence. Errors are gcloud's argument messages, e.g.
// "argument --update-labels: Bad value [X]: …" or "argument --clear-labels: At most one of
// --clear-labels | --remove-labels can be specified.".
Result<LabelsDiff> ParseLabelsDiff(const std::vector<std::string>& update_labels,
                                   const std::vector<std::string>& remove_labels, bool clear);

struct LabelsUpdate {
  bool needs_update = false;  // the new map differs from the existing one
  model::Labels labels;       // the new map
};

LabelsUpdate ApplyLabelsDiff(const LabelsDiff& diff, const model::Labels& existing);

}  // namespace trainyard::cli
