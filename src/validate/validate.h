// Every documented AI Platform Training rule for a job request.
#pragma once

#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "model/job.h"

namespace trainyard::validate {

// Returns all violations in `job`, in request-field order; empty means valid. Field paths are
// camelCase request paths ("jobId", "trainingInput.workerConfig.acceleratorConfig.count").
// Pure and thread-safe: reads only its arguments.
std::vector<FieldViolation> Validate(const model::Job& job, const catalog::Catalog& catalog);

// `Validate` as a Status: OK, or INVALID_ARGUMENT carrying every violation.
Status ValidateJob(const model::Job& job, const catalog::Catalog& catalog);

}  // namespace trainyard::validate
