// Early stopping of hyperparameter-tuning trials (`enableTrialEarlyStopping`,
// docs/reference/ai-platform-training.md §9.3): Vizier's median automated stopping rule. Pure and
// deterministic; thread-safe (reads only its arguments).
#pragma once

#include <span>
#include <vector>

#include "model/job.h"
#include "tuning/metric_file.h"

namespace trainyard::tuning {

struct MedianStoppingRule {
  int min_completed_trials = 3;  // no decision before this many completed trials have curves
  int min_reports = 2;  // a running trial is judged only after it reported this many points
};

// Whether a running trial should be stopped early.
//
// Let s be the running trial's progress at its latest (last) point. For each completed trial
// (one with a non-empty curve) that reported at least one point with progress <= s, take the
// mean of its values at progress <= s (its running average up to s). The trial is stopped when
// it reported at least `min_reports` points, there are at least `min_completed_trials` such
// averages (and at least one), and its best value so far (max for MAXIMIZE and
// GOAL_TYPE_UNSPECIFIED, min for MINIMIZE) is strictly worse than their median (the mean of the
// two middle ones for an even count).
//
// Progress is a point's global_step when every curve involved (`running` and each non-empty
// curve of `completed`) has strictly increasing steps; otherwise it is the point's ordinal
// (1, 2, …) in its curve (trainers that never pass global_step). Curves must be ordered by
// (timestamp, step), as MergeMetricPoints keeps them.
bool ShouldStopEarly(std::span<const MetricPoint> running,
                     const std::vector<std::vector<MetricPoint>>& completed, model::GoalType goal,
                     const MedianStoppingRule& rule = {});

}  // namespace trainyard::tuning
