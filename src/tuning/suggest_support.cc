#include "tuning/suggest_support.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace trainyard::tuning {
namespace {

// Random draws before falling back to the grid: a new point is all but certain with a DOUBLE
// parameter, and a finite space this crowded is nearly exhausted anyway.
constexpr int kRandomAttempts = 64;

std::string Key(const Assignment& point) {
  std::string key;
  for (const ParameterValue& value : point) {
    key += value.name;
    key += '=';
    key += value.Text();
    key += '\x1f';
  }
  return key;
}

}  // namespace

TriedPoints::TriedPoints(const StudyHistory& history) {
  for (const Observation& observation : history.completed) {
    Add(observation.params);
  }
  for (const Assignment& point : history.running) {
    Add(point);
  }
}

bool TriedPoints::Contains(const Assignment& point) const {
  return keys_.contains(Key(point));
}

void TriedPoints::Add(const Assignment& point) {
  keys_.insert(Key(point));
}

Assignment RandomPoint(const SearchSpace& space, Rng& rng) {
  std::vector<double> unit(space.unit_dimensions());
  for (double& u : unit) {
    u = rng.Uniform();
  }
  return space.FromUnit(unit);
}

std::optional<Assignment> AnyUntried(const SearchSpace& space, const TriedPoints& tried, Rng& rng) {
  for (int attempt = 0; attempt < kRandomAttempts; ++attempt) {
    Assignment point = RandomPoint(space, rng);
    if (!tried.Contains(point)) {
      return point;
    }
  }
  // The grid's first size() + 1 points hold an untried one unless the grid is that small.
  Result<std::vector<Assignment>> grid = space.Grid(tried.size() + 1);
  if (grid.ok()) {
    for (Assignment& point : *grid) {
      if (!tried.Contains(point)) {
        return std::move(point);
      }
    }
    return std::nullopt;
  }
  // A DOUBLE parameter: new points are everywhere unless its range holds few doubles.
  for (int attempt = 0; attempt < kRandomAttempts * 16; ++attempt) {
    Assignment point = RandomPoint(space, rng);
    if (!tried.Contains(point)) {
      return point;
    }
  }
  return std::nullopt;
}

std::vector<std::size_t> FitSubset(std::span<const double> values, std::size_t limit) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  if (values.size() <= limit) {
    return order;
  }
  std::ranges::stable_sort(order,
                           [&](std::size_t a, std::size_t b) { return values[a] > values[b]; });
  const std::size_t best = limit / 2;
  std::vector<std::size_t> out(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(best));
  std::vector<std::size_t> rest(order.begin() + static_cast<std::ptrdiff_t>(best), order.end());
  std::ranges::sort(rest);
  const std::size_t spread = limit - best;
  for (std::size_t k = 0; k < spread; ++k) {
    out.push_back(rest[k * rest.size() / spread]);
  }
  std::ranges::sort(out);
  return out;
}

}  // namespace trainyard::tuning
