// A Vertex AI create body made into the job to submit (issue #33: the handler only decodes the
// HTTP request, calls this, submits and encodes): decoded strictly, checked against Vertex's own
// rules with each violation at its place in the request, and mapped onto the engine's job with the
// spec the resource keeps (spec_document.h). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/job.h"
#include "vertex/custom_job_mapping.h"

namespace trainyard::vertex {

// A create body decoded and checked: the job to submit (its id the controller's to choose), and
// where the rules the controller applies at submit (ml v1's, the quota) must put their violations
// back in the request: the spec the cluster came from ("jobSpec", a tuning job's "trialJobSpec")
// and where a study's flattened parameters sit (none for a CustomJob); see WithVertexPaths.
struct PreparedJob {
  model::Job job;
  std::string spec_path;
  std::vector<std::string> parameter_paths;
};

// Decodes `body` as the create request of the resource `context.kind` (kCustomJobKind: a
// CustomJob, its display name and jobSpec checked; kTuningJobKind: a HyperparameterTuningJob, its
// study and trialJobSpec checked) and maps it for `context`, whose `document` is set here from the
// body and whose `job_id` is left to the controller. INVALID_ARGUMENT with every violation, or
// the decoder's error; INTERNAL for another kind.
Result<PreparedJob> PrepareCreate(std::string_view body, MappingContext context);

}  // namespace trainyard::vertex
