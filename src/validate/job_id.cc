#include <fmt/format.h>

#include "validate/formats.h"
#include "validate/rules.h"
#include "validate/validate.h"

namespace trainyard::validate {

void CheckJobId(const model::Job& job, Violations& out) {
  const FieldPath path = FieldPath().Child("jobId");
  // docs/reference/ai-platform-training.md §2.1: `jobId` is required on create.
  if (job.job_id.empty()) {
    out.Add(path, "is required");
    return;
  }
  // docs/reference/ai-platform-training.md §13: a Vertex AI job's id is the number the server
  // chose.
  if (job.extras.has_value() && job.extras->vertex.has_value()) {
    if (!IsVertexJobId(job.job_id)) {
      out.Add(path, fmt::format("'{}' is not a Vertex AI job id (a positive decimal number)",
                                job.job_id));
    }
    return;
  }
  // Overview seed (job ids) and docs/reference/ai-platform-training.md §2.8 #1:
  // ^[A-Za-z][A-Za-z0-9_]{0,127}$.
  if (!IsJobId(job.job_id)) {
    out.Add(path, fmt::format("'{}' is not a valid job id: use only letters, digits and "
                              "underscores, start with a letter, at most {} characters",
                              job.job_id, kMaxJobIdLength));
  }
}

}  // namespace trainyard::validate
