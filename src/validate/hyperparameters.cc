#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "tuning/param_rules.h"
#include "validate/formats.h"
#include "validate/rules.h"

namespace trainyard::validate {
namespace {

void CheckTrialCounts(const model::HyperparameterSpec& spec, const FieldPath& path,
                      Violations& out) {
  const std::pair<std::string_view, std::int32_t> counts[] = {
      {"maxTrials", spec.max_trials},
      {"maxParallelTrials", spec.max_parallel_trials},
      {"maxFailedTrials", spec.max_failed_trials}};
  bool negative = false;
  for (const auto& [name, value] : counts) {
    // docs/reference/ai-platform-training.md §2.4: trial counts are never negative (0 means the
    // default).
    if (value < 0) {
      out.Add(path.Child(name), fmt::format("must not be negative; got {}", value));
      negative = true;
    }
  }
  if (negative) {
    return;
  }
  // docs/reference/ai-platform-training.md §2.8 #14: maxParallelTrials <= maxTrials (each defaults
  // to 1).
  const std::int32_t trials = spec.max_trials == 0 ? 1 : spec.max_trials;
  const std::int32_t parallel = spec.max_parallel_trials == 0 ? 1 : spec.max_parallel_trials;
  if (parallel > trials) {
    out.Add(path.Child("maxParallelTrials"),
            fmt::format("{} parallel trials exceed maxTrials {}{}", parallel, trials,
                        spec.max_trials == 0 ? " (the default)" : ""));
  }
}

}  // namespace

void CheckHyperparameters(const JobContext& job, Violations& out) {
  if (!job.input.hyperparameters) {
    return;
  }
  const model::HyperparameterSpec& spec = *job.input.hyperparameters;
  const FieldPath path = job.path.Child("hyperparameters");
  // docs/reference/ai-platform-training.md §2.4: the rules of each parameter (tuning/param_rules.h,
  // which FromSpec applies too); their fields are whole request paths already.
  for (FieldViolation& violation : tuning::CheckParams(spec)) {
    out.Add(FieldPath().Child(violation.field), std::move(violation.description));
  }
  // docs/reference/ai-platform-training.md §2.4: GRID_SEARCH needs every parameter INTEGER,
  // CATEGORICAL or DISCRETE.
  if (spec.algorithm == model::Algorithm::kGridSearch) {
    for (std::size_t i = 0; i < spec.params.size(); ++i) {
      if (spec.params[i].type == model::ParameterType::kDouble) {
        out.Add(path.Child("params").Index(i).Child("type"),
                "GRID_SEARCH cannot enumerate a DOUBLE parameter; use INTEGER, "
                "CATEGORICAL or DISCRETE");
      }
    }
  }
  CheckTrialCounts(spec, path, out);
  // docs/reference/ai-platform-training.md §2.4: POPULATION_BASED_TRAINING is in the schema only.
  if (spec.algorithm == model::Algorithm::kPopulationBasedTraining) {
    out.Add(path.Child("algorithm"),
            "POPULATION_BASED_TRAINING is not offered; use "
            "ALGORITHM_UNSPECIFIED (Bayesian), GRID_SEARCH or "
            "RANDOM_SEARCH");
  }
  // docs/reference/ai-platform-training.md §2.4: resumePreviousJobId names an earlier job, so it is
  // a job id.
  if (!spec.resume_previous_job_id.empty() && !IsJobId(spec.resume_previous_job_id)) {
    out.Add(path.Child("resumePreviousJobId"),
            fmt::format("'{}' is not a valid job id", spec.resume_previous_job_id));
  }
}

}  // namespace trainyard::validate
