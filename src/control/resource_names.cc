#include "control/resource_names.h"

#include <string>

#include "model/project_id.h"
#include "validate/validate.h"

namespace trainyard::control {

std::optional<FieldViolation> CheckProjectId(std::string_view project, std::string_view field) {
  if (model::IsValidProjectId(project)) {
    return std::nullopt;
  }
  return FieldViolation{std::string(field),
                        "The project id must be 1 to 100 characters, start with a letter or "
                        "digit and contain only letters, digits, '-', '_', '.' and ':'."};
}

std::optional<FieldViolation> CheckJobIdInName(std::string_view job_id) {
  if (validate::IsStoredJobId(job_id)) {
    return std::nullopt;
  }
  return FieldViolation{"name",
                        "Job id must start with a letter and contain only letters, digits and "
                        "underscores (at most 128 characters)."};
}

}  // namespace trainyard::control
