// Syntax of the ids in resource names (`projects/{project}/jobs/{jobId}`), checked before any
// lookup so that hostile path segments ("../x", NUL, "/", very long) never reach storage or the
// file system. Pure and thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"

namespace trainyard::control {

// The violation on `field` ("parent" for create and list, "name" for the others) when `project`
// is malformed (`model::IsValidProjectId`). The bad value is not echoed: it may hold control
// characters.
std::optional<FieldViolation> CheckProjectId(std::string_view project, std::string_view field);

// As `CheckProjectId`, for the job id of a get, cancel or patch (always on "name"); the rule is
// validate's (`validate::IsValidJobId`).
std::optional<FieldViolation> CheckJobIdInName(std::string_view job_id);

}  // namespace trainyard::control
