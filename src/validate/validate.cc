#include "validate/validate.h"

#include <algorithm>

#include "validate/formats.h"
#include "validate/replicas.h"
#include "validate/rules.h"
#include "validate/violations.h"

namespace trainyard::validate {

std::vector<FieldViolation> Validate(const model::Job& job, const catalog::Catalog& catalog) {
  Violations out;
  CheckJobId(job, out);
  CheckLabels(job.labels, out);
  if (!job.training_input) {
    // docs/reference/ai-platform-training.md §2.8 #3: a training job needs its `trainingInput`.
    out.Add(FieldPath().Child("trainingInput"), "is required for a training job");
    return std::move(out).TakeSorted();
  }

  const model::TrainingInput& input = *job.training_input;
  const std::array<ReplicaView, 4> views = ReplicaViews(input);
  const std::vector<RunningReplica> running = RunningReplicas(views, input, catalog);
  const JobContext context{input,
                           catalog,
                           views,
                           running,
                           FieldPath().Child("trainingInput"),
                           job.extras ? &*job.extras : nullptr};
  CheckScaleTier(context, out);
  CheckMachineTypes(context, out);
  CheckAcceleratorConfigs(context, out);
  CheckRegion(context, out);
  CheckTpu(context, out);
  CheckCode(context, out);
  CheckContainers(context, out);
  CheckScheduling(context, out);
  CheckHyperparameters(context, out);
  CheckDisks(context, out);
  CheckExecLimits(context, out);
  CheckBuiltInAlgorithm(context, out);
  return std::move(out).TakeSorted();
}

Status ValidateJob(const model::Job& job, const catalog::Catalog& catalog) {
  std::vector<FieldViolation> violations = Validate(job, catalog);
  if (violations.empty()) {
    return CheckAlgorithmAvailable(job);
  }
  return Status::InvalidArgument(std::move(violations));
}

bool IsValidJobId(std::string_view job_id) {
  return IsJobId(job_id);
}

bool IsVertexJobId(std::string_view job_id) {
  constexpr std::size_t kMaxDigits = 19;  // below 2^63
  return !job_id.empty() && job_id.size() <= kMaxDigits && job_id.front() != '0' &&
         std::ranges::all_of(job_id, [](char c) { return c >= '0' && c <= '9'; });
}

bool IsStoredJobId(std::string_view job_id) {
  return IsValidJobId(job_id) || IsVertexJobId(job_id);
}

std::vector<FieldViolation> ValidateLabels(const model::Labels& labels) {
  Violations out;
  CheckLabels(labels, out);
  return std::move(out).TakeSorted();
}

}  // namespace trainyard::validate
