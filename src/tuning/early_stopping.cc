#include "tuning/early_stopping.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

namespace trainyard::tuning {
namespace {

bool StepsStrictlyIncrease(std::span<const MetricPoint> curve) {
  return std::adjacent_find(curve.begin(), curve.end(),
                            [](const MetricPoint& a, const MetricPoint& b) {
                              return b.step <= a.step;
                            }) == curve.end();
}

// The mean of `curve`'s values at progress <= `progress`; nullopt when it has none there.
std::optional<double> RunningAverage(std::span<const MetricPoint> curve, std::int64_t progress,
                                     bool by_step) {
  double sum = 0;
  std::int64_t count = 0;
  for (const MetricPoint& point : curve) {
    const std::int64_t point_progress = by_step ? point.step : count + 1;
    if (point_progress > progress) {
      break;  // progress increases along a curve in both modes
    }
    sum += point.value;
    ++count;
  }
  if (count == 0) {
    return std::nullopt;
  }
  return sum / static_cast<double>(count);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

bool ShouldStopEarly(std::span<const MetricPoint> running,
                     const std::vector<std::vector<MetricPoint>>& completed, model::GoalType goal,
                     const MedianStoppingRule& rule) {
  if (running.empty() || running.size() < static_cast<std::size_t>(std::max(rule.min_reports, 0))) {
    return false;
  }
  bool by_step = StepsStrictlyIncrease(running);
  for (const std::vector<MetricPoint>& curve : completed) {
    by_step = by_step && StepsStrictlyIncrease(curve);
  }
  const std::int64_t progress =
      by_step ? running.back().step : static_cast<std::int64_t>(running.size());

  std::vector<double> averages;
  for (const std::vector<MetricPoint>& curve : completed) {
    if (const std::optional<double> average = RunningAverage(curve, progress, by_step)) {
      averages.push_back(*average);
    }
  }
  if (averages.empty() ||
      averages.size() < static_cast<std::size_t>(std::max(rule.min_completed_trials, 0))) {
    return false;
  }
  const double median = Median(std::move(averages));

  const bool minimize = goal == model::GoalType::kMinimize;
  const auto worse = [minimize](double a, double b) { return minimize ? a > b : a < b; };
  double best = running.front().value;
  for (const MetricPoint& point : running) {
    if (worse(best, point.value)) {
      best = point.value;
    }
  }
  return worse(best, median);
}

}  // namespace trainyard::tuning
