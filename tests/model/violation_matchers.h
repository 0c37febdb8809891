// Helpers for asserting on the field violations of model/ decoders.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace trainyard::model {

// The `field` of each violation, in order.
inline std::vector<std::string> FieldsOf(const Status& status) {
  std::vector<std::string> fields;
  for (const FieldViolation& violation : status.violations()) {
    fields.push_back(violation.field);
  }
  return fields;
}

// All descriptions joined by newlines, for substring checks and failure messages.
inline std::string DescriptionsOf(const Status& status) {
  std::string text;
  for (const FieldViolation& violation : status.violations()) {
    text += violation.field + ": " + violation.description + "\n";
  }
  return text;
}

}  // namespace trainyard::model
