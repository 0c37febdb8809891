// How a hyperparameter-tuning job goes on, as pure decisions over its trials
// (docs/reference/ai-platform-training.md §2.4, §9.3). The executor (control/) asks after every
// change; this file owns the rules:
//
// - At most maxTrials trials (default 1) in all, at most maxParallelTrials (default 1) at once.
//   Trials of a resumed job (resumePreviousJobId) are prior observations and do not count.
// - A trial that FAILED counts against maxFailedTrials; at that many failures the job FAILS and
//   its running trials are stopped. maxFailedTrials 0 lets trainyard decide: half of maxTrials,
//   rounded up.
// - The job ends when no trial runs and no more will start (maxTrials reached, or the grid is
//   exhausted): SUCCEEDED when at least one trial reported the metric, FAILED otherwise.
// - New suggestions use completed trials (those with a finalMetric) as observations; running
//   trials, failed ones and ones that ended without a metric are points not to try again.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/job.h"
#include "tuning/conditional_space.h"
#include "tuning/metric_file.h"  // kDefaultMetricTag
#include "tuning/search_space.h"
#include "tuning/suggest.h"

namespace trainyard::tuning {

struct StudyLimits {
  int max_trials = 1;
  int max_parallel_trials = 1;  // never more than max_trials
  int max_failed_trials = 1;    // the job FAILS at this many failed trials
};

StudyLimits LimitsOf(const model::HyperparameterSpec& spec);

// The tag trials report under: hyperparameterMetricTag, else kDefaultMetricTag (the hypertune
// library's default, tuning/metric_file.h).
std::string MetricTagOf(const model::HyperparameterSpec& spec);

struct StudyDecision {
  int start = 0;              // how many new trials to start now
  bool stop_running = false;  // the job has failed: stop the trials still running
  bool finished = false;      // nothing runs and nothing will: write `outcome` and `message`
  model::JobState outcome = model::JobState::kUnspecified;
  std::string message;
};

// `trials` are this job's trials (trainingOutput.trials), a trial RUNNING until its terminal
// state is written. `exhausted`: the suggester has no new point (a finished grid). `last_failure`
// (the latest failed trial's message, "" if none) is quoted when failures end the job.
StudyDecision DecideStudy(const model::HyperparameterSpec& spec,
                          std::span<const model::HyperparameterOutput> trials, bool exhausted,
                          std::string_view last_failure);

// The observations and the points not to try again that `trials` give, in trial order (prior
// trials first when the caller lists them first), each a point of `space.flat()` (inactive
// conditional parameters at their stand-ins). A trial whose hyperparameters do not parse in
// `space` (a resumed study whose space changed) is left out. A multi-objective study's
// observations carry their other metrics' values (Observation::more) from `measurements`.
StudyHistory HistoryOf(const ConditionalSpace& space,
                       std::span<const model::HyperparameterOutput> trials,
                       std::span<const model::TrialMeasurement> measurements = {});

// One more than the largest numeric trialId of `trials` (1 when there are none).
std::int64_t NextTrialId(std::span<const model::HyperparameterOutput> trials);

// Whether `previous` can be continued by a job with `spec`: a hyperparameter-tuning job that has
// finished, whose parameters have the same names and types. INVALID_ARGUMENT with a field
// violation on trainingInput.hyperparameters.resumePreviousJobId otherwise (FAILED_PRECONDITION
// when it has not finished yet).
Status CheckResumable(const model::HyperparameterSpec& spec, const model::Job& previous);

// Trials as the finished job lists them: best objective first (as `goal` orders them), then
// trials without a final metric, each group by trial number.
void SortTrialsForOutput(std::vector<model::HyperparameterOutput>& trials, model::GoalType goal);

}  // namespace trainyard::tuning
