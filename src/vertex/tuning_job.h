// Vertex AI's HyperparameterTuningJob (aiplatform v1 `hyperparameter_tuning_job.proto`,
// `study.proto`) as values, decoded strictly, mapped onto the engine's tuning study (the same
// optimiser as ml v1's `trainingInput.hyperparameters`) and shown back with its trials. Pure.
//
// The mapping: studySpec.metrics[0] is the goal and the hypertune metric tag, further metrics
// (a multi-objective study) are kept in the job's extras (`extra_metrics`, each trial's values of
// them in `trial_measurements`) and echoed in each trial's finalMeasurement; each parameter
// becomes an ml v1 ParameterSpec (DOUBLE, INTEGER, CATEGORICAL, DISCRETE with its scaleType);
// conditionalParameterSpecs are flattened after their parent, each child's condition kept in the
// job's extras (`parameter_conditions`), so a trial gets its active parameters only;
// algorithm ALGORITHM_UNSPECIFIED is the Gaussian-process search, GRID_SEARCH and RANDOM_SEARCH
// as named; decayCurveStoppingSpec and medianAutomatedStoppingSpec turn on the engine's median
// stopping rule; measurementSelectionType BEST_MEASUREMENT makes a trial's final measurement its
// best reported value rather than its last; maxTrialCount, parallelTrialCount and
// maxFailedTrialCount are maxTrials, maxParallelTrials and maxFailedTrials; trialJobSpec is the
// trials' cluster, as a CustomJob's jobSpec. A trial's state: running ACTIVE, succeeded
// SUCCEEDED, failed or cancelled INFEASIBLE.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "model/job.h"
#include "model/job_extras.h"
#include "vertex/custom_job.h"
#include "vertex/custom_job_mapping.h"

namespace trainyard::vertex {

struct StudySpec {
  model::GoalType goal = model::GoalType::kUnspecified;  // studySpec.metrics[0]
  std::string metric_id;
  std::vector<model::StudyMetric> extra_metrics;  // studySpec.metrics[1..]
  // Every parameter, conditional ones flattened depth first after their parent, with each
  // one's path in the request
  // ("studySpec.parameters[0].conditionalParameterSpecs[1].parameterSpec").
  std::vector<model::ParameterSpec> parameters;
  std::vector<std::string> parameter_paths;
  std::vector<model::ParameterCondition> conditions;
  model::Algorithm algorithm = model::Algorithm::kUnspecified;
  bool early_stopping = false;
  bool best_measurement = false;  // measurementSelectionType BEST_MEASUREMENT

  friend bool operator==(const StudySpec&, const StudySpec&) = default;
};

struct TuningJob {
  std::string display_name;
  StudySpec study_spec;
  std::int32_t max_trial_count = 0;
  std::int32_t parallel_trial_count = 0;
  std::int32_t max_failed_trial_count = 0;
  CustomJobSpec trial_job_spec;
  std::map<std::string, std::string> labels;

  friend bool operator==(const TuningJob&, const TuningJob&) = default;
};

// Decodes a create body; every problem at once (paths "studySpec.parameters[1].scaleType"), with
// what trainyard cannot honour named (a metric's safetyConfig, a convex stopping spec).
Result<TuningJob> DecodeTuningJob(std::string_view text);

// Vertex's own rules: displayName, positive maxTrialCount and parallelTrialCount, at least one
// metric, each with a goal and an id of its own, every parameter with exactly one value spec,
// then the trialJobSpec's.
std::vector<FieldViolation> ValidateTuningJob(const TuningJob& job, const MappingContext& context);

// The study as an engine job (`context.kind` "HyperparameterTuningJob", `document` the request's
// studySpec, trialJobSpec and counts).
model::Job ToJob(const TuningJob& job, const MappingContext& context);

// The HyperparameterTuningJob resource of a stored job: the common fields, the spec as accepted,
// and `trials` from its trainingOutput, each parameter's value typed by the study's spec.
nlohmann::ordered_json EncodeTuningJob(std::string_view project, const model::Job& job);

}  // namespace trainyard::vertex
