#include "tuning/metric_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

namespace trainyard::tuning {
namespace {

using nlohmann::json;

// The whole of `text` as a finite double ("0.912", "1e-05"); nullopt for anything else,
// including "nan" and "inf", which Python's str(float) writes for those values.
std::optional<double> ParseFiniteDouble(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// A finite number given as a JSON number or as a JSON string holding one.
std::optional<double> FiniteNumber(const json& field) {
  if (field.is_number()) {
    const auto value = field.get<double>();
    return std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
  }
  if (field.is_string()) {
    return ParseFiniteDouble(field.get_ref<const std::string&>());
  }
  return std::nullopt;
}

// `global_step` as the library writes it (str(int(step))) or as a JSON integer.
std::optional<std::int64_t> Step(const json& field) {
  if (field.is_number_unsigned()) {
    const auto value = field.get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(value);
  }
  if (field.is_number_integer()) {
    return field.get<std::int64_t>();
  }
  if (field.is_string()) {
    const auto& text = field.get_ref<const std::string&>();
    std::int64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec == std::errc() && ptr == end && !text.empty()) {
      return value;
    }
  }
  return std::nullopt;
}

// The point `line` reports under `tag`, if it is a complete entry carrying it.
std::optional<MetricPoint> ParseLine(std::string_view line, const std::string& tag) {
  const json entry = json::parse(line.begin(), line.end(), /*cb=*/nullptr,
                                 /*allow_exceptions=*/false);
  if (!entry.is_object()) {
    return std::nullopt;  // blank, truncated or not an object (a discarded parse is not either)
  }
  const auto metric = entry.find(tag);
  if (metric == entry.end()) {
    return std::nullopt;
  }
  const std::optional<double> value = FiniteNumber(*metric);
  if (!value) {
    return std::nullopt;
  }
  MetricPoint point;
  point.value = *value;
  if (const auto step = entry.find("global_step"); step != entry.end()) {
    const std::optional<std::int64_t> parsed = Step(*step);
    if (!parsed) {
      return std::nullopt;
    }
    point.step = *parsed;
  }
  if (const auto timestamp = entry.find("timestamp"); timestamp != entry.end()) {
    point.timestamp = FiniteNumber(*timestamp).value_or(0);
  }
  return point;
}

// The order MergeMetricPoints keeps.
auto Key(const MetricPoint& point) {
  return std::tuple(point.timestamp, point.step);
}

bool KeyLess(const MetricPoint& a, const MetricPoint& b) {
  return Key(a) < Key(b);
}

}  // namespace

std::vector<MetricPoint> ParseMetricFile(std::string_view text, std::string_view tag) {
  const std::string key(tag.empty() ? kDefaultMetricTag : tag);
  std::vector<MetricPoint> points;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (auto point = ParseLine(line, key)) {
      points.push_back(*point);
    }
  }
  return points;
}

void MergeMetricPoints(std::vector<MetricPoint>& history, std::span<const MetricPoint> fresh) {
  if (!std::is_sorted(history.begin(), history.end(), KeyLess)) {
    std::stable_sort(history.begin(), history.end(), KeyLess);
  }
  for (const MetricPoint& point : fresh) {
    const auto [first, last] = std::equal_range(history.begin(), history.end(), point, KeyLess);
    if (std::find(first, last, point) == last) {
      history.insert(last, point);
    }
  }
}

std::optional<MetricPoint> LatestMetric(std::span<const MetricPoint> points) {
  std::optional<MetricPoint> latest;
  for (const MetricPoint& point : points) {
    if (!latest || !KeyLess(point, *latest)) {
      latest = point;
    }
  }
  return latest;
}

std::optional<MetricPoint> BestMetric(std::span<const MetricPoint> points, model::GoalType goal) {
  std::optional<MetricPoint> best;
  for (const MetricPoint& point : points) {
    if (!best || (goal == model::GoalType::kMaximize ? point.value > best->value
                                                     : point.value < best->value)) {
      best = point;
    }
  }
  return best;
}

std::vector<std::optional<MetricPoint>> FinalMetrics(
    std::span<const std::vector<MetricPoint>> curves, std::span<const model::GoalType> goals,
    bool best) {
  std::vector<std::optional<MetricPoint>> out;
  for (std::size_t i = 0; i < curves.size(); ++i) {
    out.push_back(best ? BestMetric(curves[i], goals[i]) : LatestMetric(curves[i]));
  }
  return out;
}

}  // namespace trainyard::tuning
