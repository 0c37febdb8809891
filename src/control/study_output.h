// Internal to control/: what a tuning job's study writes into its trainingOutput, shared by the
// study loop (executor_study.cc) and its trials (executor_trial.cc). Pure functions over jobs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/job.h"
#include "tuning/metric_file.h"

namespace trainyard::control {

// Trial curves kept in allMetrics (the hypertune library keeps as many in its file).
inline constexpr std::size_t kKeptMetrics = 100;

// A trial's allMetrics as metric points, in order (their timestamps are their positions).
std::vector<tuning::MetricPoint> CurveOf(const model::HyperparameterOutput& trial);

// The trial `trial_id` of the job's trainingOutput; nullptr when it has none.
model::HyperparameterOutput* FindTrial(model::Job& job, std::string_view trial_id);

// The job's trainingOutput, marked as a tuning job's.
model::TrainingOutput& TuningOutput(model::Job& job, const std::string& tag);

// A multi-objective study's closing words, " The Pareto front of acc, loss: trials 1, 3." (its
// trials measured on every metric that no other such trial dominates); "" for one metric.
std::string ParetoFrontText(const model::Job& job);

// "x=1, y=a": parameters as the service log shows them.
std::string ParamsText(const std::vector<std::pair<std::string, std::string>>& values);

}  // namespace trainyard::control
