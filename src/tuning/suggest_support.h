// What the suggesters share: telling tried points apart, uniform random points, finding an
// untried point of a space when the preferred one was tried already, and the GP's fit subset.
// Internal to tuning/.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "tuning/random.h"
#include "tuning/search_space.h"
#include "tuning/suggest.h"

namespace trainyard::tuning {

// The points a study has tried or is trying (completed and running), plus the ones a suggester
// picks as it goes; compared by each value's `Text()`, as trials record them.
class TriedPoints {
 public:
  explicit TriedPoints(const StudyHistory& history);
  bool Contains(const Assignment& point) const;
  void Add(const Assignment& point);
  std::size_t size() const { return keys_.size(); }

 private:
  std::unordered_set<std::string> keys_;
};

// A uniform point of the unit cube, as an assignment (log scales sampled log-uniformly).
Assignment RandomPoint(const SearchSpace& space, Rng& rng);

// An untried point: a few random draws, then, for a space without DOUBLE parameters, the first
// untried point of its grid. None when every point of a finite space has been tried.
std::optional<Assignment> AnyUntried(const SearchSpace& space, const TriedPoints& tried, Rng& rng);

// Which of `values` (larger is better) the GP's hyperparameters are fitted to when there are more
// than `limit`: the best half of `limit`, and the rest spread evenly over the others in their
// order (the study's order, so early exploration and late refinement both count). Ascending
// indices; all of them when values.size() <= limit.
std::vector<std::size_t> FitSubset(std::span<const double> values, std::size_t limit);

}  // namespace trainyard::tuning
