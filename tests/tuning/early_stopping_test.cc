#include "tuning/early_stopping.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::tuning {
namespace {

using model::GoalType;
using Curve = std::vector<MetricPoint>;

// A curve reported at steps stride, 2*stride, … (all 0 when stride is 0: a trainer that never
// passes global_step), one second apart.
Curve Reported(std::vector<double> values, std::int64_t stride) {
  Curve curve;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto n = static_cast<std::int64_t>(i);
    curve.push_back({(n + 1) * stride, values[i], 1000.0 + static_cast<double>(i)});
  }
  return curve;
}

Curve Ordinal(std::vector<double> values) {
  return Reported(std::move(values), 0);
}

// Running averages 2, 4 and 6 after two reports: median 4.
std::vector<Curve> ThreeCompleted() {
  return {Ordinal({1, 3, 100, 100}), Ordinal({3, 5, 100, 100}), Ordinal({5, 7, 100, 100})};
}

struct StopCase {
  std::string name;
  Curve running;
  std::vector<Curve> completed;
  GoalType goal;
  bool want;
  MedianStoppingRule rule = {};
};

class ShouldStopEarlyTest : public ::testing::TestWithParam<StopCase> {};

TEST_P(ShouldStopEarlyTest, AppliesTheMedianRule) {
  const StopCase& tc = GetParam();
  EXPECT_EQ(ShouldStopEarly(tc.running, tc.completed, tc.goal, tc.rule), tc.want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ShouldStopEarlyTest,
    ::testing::Values(
        // Maximize: best so far against the median of the completed trials' running averages.
        StopCase{"MaximizeWorseThanMedianStops", Ordinal({1, 3.5}), ThreeCompleted(),
                 GoalType::kMaximize, true},
        StopCase{"MaximizeEqualToMedianRuns", Ordinal({2, 4}), ThreeCompleted(),
                 GoalType::kMaximize, false},
        StopCase{"MaximizeBetterThanMedianRuns", Ordinal({2, 5}), ThreeCompleted(),
                 GoalType::kMaximize, false},
        StopCase{"JudgesTheBestValueNotTheLatest", Ordinal({5, 1}), ThreeCompleted(),
                 GoalType::kMaximize, false},
        StopCase{"UnspecifiedGoalMaximizes", Ordinal({1, 3.5}), ThreeCompleted(),
                 GoalType::kUnspecified, true},
        // Minimize: averages 6, 4, 2, median 4; lower is better.
        StopCase{"MinimizeWorseThanMedianStops",
                 Ordinal({6, 5}),
                 {Ordinal({7, 5}), Ordinal({5, 3}), Ordinal({3, 1})},
                 GoalType::kMinimize,
                 true},
        StopCase{"MinimizeEqualToMedianRuns",
                 Ordinal({6, 4}),
                 {Ordinal({7, 5}), Ordinal({5, 3}), Ordinal({3, 1})},
                 GoalType::kMinimize,
                 false},
        StopCase{"MinimizeBetterThanMedianRuns",
                 Ordinal({6, 3}),
                 {Ordinal({7, 5}), Ordinal({5, 3}), Ordinal({3, 1})},
                 GoalType::kMinimize,
                 false},
        StopCase{"MaximizeOnLossCurvesRuns",
                 Ordinal({6, 5}),
                 {Ordinal({7, 5}), Ordinal({5, 3}), Ordinal({3, 1})},
                 GoalType::kMaximize,
                 false},
        // Gates: too few completed trials, too few reports, nothing running.
        StopCase{"TooFewCompletedTrials",
                 Ordinal({1, 1}),
                 {Ordinal({3, 5}), Ordinal({5, 7})},
                 GoalType::kMaximize,
                 false},
        StopCase{"EmptyCompletedCurvesDoNotCount",
                 Ordinal({1, 1}),
                 {Ordinal({3, 5}), Ordinal({5, 7}), {}},
                 GoalType::kMaximize,
                 false},
        StopCase{"TooFewReports", Ordinal({1}), ThreeCompleted(), GoalType::kMaximize, false},
        StopCase{"NothingReported",
                 {},
                 {Reported({3, 5}, 100)},
                 GoalType::kMaximize,
                 false,
                 MedianStoppingRule{.min_completed_trials = 1, .min_reports = 0}},
        StopCase{"LooserRuleDecidesEarlier",
                 Ordinal({1}),
                 {Ordinal({3, 5})},
                 GoalType::kMaximize,
                 true,
                 MedianStoppingRule{.min_completed_trials = 1, .min_reports = 1}},
        // Even count: averages 2, 4, 6, 8, median 5 (the mean of 4 and 6).
        StopCase{"EvenCountBelowMeanOfMiddlesStops",
                 Ordinal({4.5, 4.9}),
                 {Ordinal({1, 3}), Ordinal({3, 5}), Ordinal({5, 7}), Ordinal({7, 9})},
                 GoalType::kMaximize,
                 true},
        StopCase{"EvenCountAtMeanOfMiddlesRuns",
                 Ordinal({4.5, 5}),
                 {Ordinal({1, 3}), Ordinal({3, 5}), Ordinal({5, 7}), Ordinal({7, 9})},
                 GoalType::kMaximize,
                 false},
        // Step progress: s = 200; only the completed points at steps <= 200 are averaged
        // (2, 4, 6 → median 4), not the later 50s.
        StopCase{"StepProgressAveragesOnlyUpToS",
                 Reported({1, 5}, 100),
                 {Reported({1, 3, 50}, 100), Reported({3, 5, 50}, 100), Reported({5, 7, 50}, 100)},
                 GoalType::kMaximize,
                 false},
        // The running trial reports every 200 steps, the completed ones every 100: at step 400
        // their averages are 4, 6, 8 (median 6), where the ordinal 2 would give 2, 4, 6.
        StopCase{"StepProgressWhenStepsIncrease",
                 Reported({1, 5}, 200),
                 {Reported({1, 3, 5, 7}, 100), Reported({3, 5, 7, 9}, 100),
                  Reported({5, 7, 9, 11}, 100)},
                 GoalType::kMaximize,
                 true},
        // One curve without increasing steps puts every curve on ordinal progress: 2, 4, 6.
        StopCase{"OrdinalProgressWhenOneCurveHasNoSteps",
                 Reported({1, 5}, 200),
                 {Reported({1, 3, 5, 7}, 100), Reported({3, 5, 7, 9}, 100), Ordinal({5, 7, 9, 11})},
                 GoalType::kMaximize,
                 false},
        // Trainers that never pass global_step: progress is the ordinal, not step 0 (at step 0
        // every point would count, and the 100s would push the median up and stop it).
        StopCase{"OrdinalProgressWhenStepsAreAllZero", Ordinal({1, 5}), ThreeCompleted(),
                 GoalType::kMaximize, false},
        StopCase{"OrdinalProgressStopsWorseTrial", Ordinal({1, 3}), ThreeCompleted(),
                 GoalType::kMaximize, true},
        // Completed trials that first reported after s are left out: two averages remain.
        StopCase{"CompletedTrialsThatNeverReachedSAreIgnored",
                 Reported({1, 3}, 100),
                 {Reported({3, 5}, 100), Reported({5, 7}, 100), Reported({9, 9}, 300)},
                 GoalType::kMaximize,
                 false},
        StopCase{"CompletedTrialsThatReachedSCount",
                 Reported({1, 3, 3}, 100),
                 {Reported({3, 5}, 100), Reported({5, 7}, 100), Reported({9, 9}, 300)},
                 GoalType::kMaximize,
                 true}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::tuning
