#include "vertex/prepare.h"

#include <utility>

#include "vertex/custom_job.h"
#include "vertex/spec_document.h"
#include "vertex/tuning_job.h"
#include "vertex/vertex_json.h"

namespace trainyard::vertex {
namespace {

// The members of each create body the resource keeps (SpecDocument): a CustomJob's jobSpec
// itself, a tuning job's study, counts and trial spec as one object.
constexpr std::string_view kCustomJobMembers[] = {"jobSpec"};
constexpr std::string_view kTuningJobMembers[] = {
    "studySpec", "maxTrialCount", "parallelTrialCount", "maxFailedTrialCount", "trialJobSpec"};

Result<PreparedJob> PrepareCustomJob(std::string_view body, MappingContext context) {
  Result<CustomJob> job = DecodeCustomJob(body);
  if (!job.ok()) {
    return job.status();
  }
  context.document = SpecDocument(body, kCustomJobMembers, /*unwrap=*/true);
  std::vector<FieldViolation> violations = ValidateDisplayName(job->display_name);
  for (FieldViolation& violation : ValidateJobSpec(job->job_spec, "jobSpec", context)) {
    violations.push_back(std::move(violation));
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return PreparedJob{.job = ToJob(*job, context), .spec_path = "jobSpec", .parameter_paths = {}};
}

Result<PreparedJob> PrepareTuningJob(std::string_view body, MappingContext context) {
  Result<TuningJob> job = DecodeTuningJob(body);
  if (!job.ok()) {
    return job.status();
  }
  context.document = SpecDocument(body, kTuningJobMembers, /*unwrap=*/false);
  std::vector<FieldViolation> violations = ValidateTuningJob(*job, context);
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  std::vector<std::string> paths = job->study_spec.parameter_paths;
  return PreparedJob{.job = ToJob(*job, context),
                     .spec_path = "trialJobSpec",
                     .parameter_paths = std::move(paths)};
}

}  // namespace

Result<PreparedJob> PrepareCreate(std::string_view body, MappingContext context) {
  if (context.kind == kCustomJobKind) {
    return PrepareCustomJob(body, std::move(context));
  }
  if (context.kind == kTuningJobKind) {
    return PrepareTuningJob(body, std::move(context));
  }
  return Status::Internal("no Vertex AI resource of kind " + context.kind);
}

}  // namespace trainyard::vertex
