// Reading a trial's cloudml-hypertune metric file (docs/reference/ai-platform-training.md §9.2)
// into measurements, and keeping a trial's whole metric history across rereads of that file. Pure
// and deterministic: the caller reads the file and passes its text; nothing here does IO.
// Thread-safe: reads only its arguments.
//
// The library writes one JSON object per line, keys sorted, every value a string except
// `timestamp`:
//   {"global_step": "500", "timestamp": 1700000000.25, "trial": "2", "val_accuracy": "0.912"}
// and rewrites the whole file on each report, keeping only its last 100 entries.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "model/job.h"

namespace trainyard::tuning {

// One reported measurement of a trial's metric.
struct MetricPoint {
  std::int64_t step = 0;  // global_step ("0" when the trainer gave none)
  double value = 0;       // the metric's value
  double timestamp = 0;   // epoch seconds as the library wrote it

  friend bool operator==(const MetricPoint&, const MetricPoint&) = default;
};

// The tag the library reports under when the trainer gives none (and the API's default
// `hyperparameterMetricTag`).
inline constexpr std::string_view kDefaultMetricTag = "training/hptuning/metric";

// The entries of a metric file's `text` that carry `tag` (an empty tag means
// `kDefaultMetricTag`), in file order.
//
// Lenient by design, since trainyard reads the file while the trainer rewrites it. Skipped:
// blank lines, a truncated last line, lines that are not JSON objects, entries without the tag,
// and entries whose value is not a finite number (a JSON string such as "0.91", as the library
// writes it, or a JSON number; "nan" and "inf" are skipped). `global_step` may be a string or a
// JSON integer; missing means 0; an entry whose `global_step` is not an integer is skipped.
// `timestamp` may be a JSON number or a numeric string; missing or not finite means 0.
std::vector<MetricPoint> ParseMetricFile(std::string_view text, std::string_view tag);

// Adds to `history` the points of `fresh` it does not have yet, where equal means the same step,
// value and timestamp (so points seen on an earlier read are not added twice, and identical
// points collapse into one). The library keeps only its last 100 entries, so a long trial's file
// forgets early ones; `history` keeps every point it has seen. Keeps `history` ordered by
// (timestamp, step), stably: points with the same key stay in the order they arrived.
void MergeMetricPoints(std::vector<MetricPoint>& history, std::span<const MetricPoint> fresh);

// The current measurement of a trial: the point with the newest timestamp (ties: the larger
// step; then the later one in `points`). nullopt when `points` is empty.
std::optional<MetricPoint> LatestMetric(std::span<const MetricPoint> points);

// The best point for `goal` (the largest value to MAXIMIZE, else the smallest; ties: the
// earlier), Vertex AI's BEST_MEASUREMENT. nullopt when `points` is empty.
std::optional<MetricPoint> BestMetric(std::span<const MetricPoint> points, model::GoalType goal);

// A trial's final measurement of each of its study's metrics (`curves[i]` the reports of metric
// i, whose goal is `goals[i]`): each metric's BestMetric when `best`, else its LatestMetric.
// nullopt for a metric never reported.
std::vector<std::optional<MetricPoint>> FinalMetrics(
    std::span<const std::vector<MetricPoint>> curves, std::span<const model::GoalType> goals,
    bool best);

}  // namespace trainyard::tuning
