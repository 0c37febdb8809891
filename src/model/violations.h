// Where a problem is and the list of problems found, shared by the model/ readers (internal).
//
// Paths are camelCase, dotted, with indices and map keys as the API's error messages spell them:
// "trainingInput.hyperparameters.params[2].minValue", "labels.team". The empty path is the
// document's root, shown under the root's name ("job"). Paths are built with base/json_reader.h.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trainyard::model::internal {

// Collects violations, keeping the first `kMaxKept` so that a pathological document (a million
// bad array elements) cannot turn into a million-line error. Each may name a more precise
// `locus` than its field, for pointing into the source text: an unknown field is reported on its
// parent (as Google does) but is located at its own key.
class Violations {
 public:
  static constexpr std::size_t kMaxKept = 50;

  struct Entry {
    FieldViolation violation;
    std::string locus;
  };

  void Add(std::string field, std::string description, std::string locus = "") {
    if (entries_.size() < kMaxKept) {
      if (locus.empty()) {
        locus = field;
      }
      entries_.push_back({{std::move(field), std::move(description)}, std::move(locus)});
    } else {
      ++dropped_;
    }
  }
  bool empty() const { return entries_.empty(); }
  std::vector<Entry>& entries() { return entries_; }

  // The kept violations, plus one at `root` counting the dropped ones.
  std::vector<FieldViolation> Take(std::string_view root) && {
    std::vector<FieldViolation> out;
    out.reserve(entries_.size() + 1);
    for (Entry& entry : entries_) {
      out.push_back(std::move(entry.violation));
    }
    if (dropped_ > 0) {
      out.push_back({std::string(root), std::to_string(dropped_) + " more problems not shown"});
    }
    return out;
  }

 private:
  std::vector<Entry> entries_;
  std::size_t dropped_ = 0;
};

}  // namespace trainyard::model::internal
