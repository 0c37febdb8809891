// Syntax of the ids in resource names (`projects/{project}/jobs/{jobId}`), checked before any
// lookup so that hostile path segments ("../x", NUL, "/", very long) never reach storage or the
// file system. Pure and thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"

namespace trainyard::control {

// A project id or number: 1-100 characters, a letter or digit first, then letters, digits and
// `-`, `_`, `.`, `:` (domain-scoped ids look like "example.com:proj"). A superset of Google's
// rules, so every real project id works.
bool IsValidProjectId(std::string_view project);

// The violation on `field` ("parent" for create and list, "name" for the others) when `project`
// is malformed. The bad value is not echoed: it may hold control characters.
std::optional<FieldViolation> CheckProjectId(std::string_view project, std::string_view field);

// As `CheckProjectId`, for the job id of a get, cancel or patch (always on "name"); the rule is
// validate's (`validate::IsValidJobId`).
std::optional<FieldViolation> CheckJobIdInName(std::string_view job_id);

}  // namespace trainyard::control
