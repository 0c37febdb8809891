// The problems found in a Slurm configuration or job request, gathered field by field before
// they are refused together as one INVALID_ARGUMENT (internal to run/slurm/).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trainyard::run::slurm::internal {

struct Violations {
  std::vector<FieldViolation> list;
  void Add(std::string field, std::string description) {
    list.push_back(FieldViolation{std::move(field), std::move(description)});
  }
};

}  // namespace trainyard::run::slurm::internal
