// Internal to validate/: the request path of a field and the collector the rules report into.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trainyard::validate {

// A camelCase request path such as "trainingInput.hyperparameters.params[1].maxValue".
// A value type; the default one is the request root.
class FieldPath {
 public:
  FieldPath() = default;

  FieldPath Child(std::string_view name) const;
  FieldPath Index(std::size_t index) const;
  const std::string& str() const { return text_; }
  // The last field name, "workerCount" for "trainingInput.workerCount".
  std::string_view leaf() const;

 private:
  explicit FieldPath(std::string text) : text_(std::move(text)) {}

  std::string text_;
};

// Collects every violation the rules find; not thread-safe (one per `Validate` call).
class Violations {
 public:
  void Add(const FieldPath& field, std::string description);

  bool empty() const { return list_.empty(); }

  // Every violation added, stably sorted into request-field order (the order of the fields in
  // the `Job` message, array elements by index); rule order breaks ties.
  std::vector<FieldViolation> TakeSorted() &&;

 private:
  std::vector<FieldViolation> list_;
};

}  // namespace trainyard::validate
