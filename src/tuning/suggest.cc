#include "tuning/suggest.h"

#include <utility>

#include <fmt/format.h>

#include "tuning/bayesian_suggester.h"
#include "tuning/suggest_support.h"

namespace trainyard::tuning {
namespace {

// Stream tags, so the random search and the Bayesian design never share numbers.
constexpr std::uint64_t kRandomSearchStream = 0x52414e44;  // "RAND"

std::size_t TrialCount(const StudyHistory& history) {
  return history.completed.size() + history.running.size();
}

// GRID_SEARCH: the grid in order, skipping what was tried.
class GridSuggester final : public Suggester {
 public:
  explicit GridSuggester(SearchSpace space) : space_(std::move(space)) {}

  Result<std::vector<Assignment>> Suggest(const StudyHistory& history, int count) override {
    std::vector<Assignment> out;
    if (count <= 0) {
      return out;
    }
    const TriedPoints tried(history);
    // Tried points take at most tried.size() of the first grid points.
    Result<std::vector<Assignment>> grid =
        space_.Grid(tried.size() + static_cast<std::size_t>(count));
    if (!grid.ok()) {
      return grid.status();
    }
    for (Assignment& point : *grid) {
      if (out.size() == static_cast<std::size_t>(count)) {
        break;
      }
      if (!tried.Contains(point)) {
        out.push_back(std::move(point));
      }
    }
    return out;
  }

 private:
  SearchSpace space_;
};

// RANDOM_SEARCH: uniform points of the unit cube, new ones only.
class RandomSuggester final : public Suggester {
 public:
  RandomSuggester(SearchSpace space, std::uint64_t seed) : space_(std::move(space)), seed_(seed) {}

  Result<std::vector<Assignment>> Suggest(const StudyHistory& history, int count) override {
    std::vector<Assignment> out;
    TriedPoints tried(history);
    Rng rng(MixSeed({seed_, kRandomSearchStream, TrialCount(history)}));
    for (int i = 0; i < count; ++i) {
      std::optional<Assignment> point = RandomPoint(space_, rng);
      if (tried.Contains(*point)) {
        point = AnyUntried(space_, tried, rng);
      }
      if (!point) {
        break;  // a finite space, every point tried
      }
      tried.Add(*point);
      out.push_back(std::move(*point));
    }
    return out;
  }

 private:
  SearchSpace space_;
  std::uint64_t seed_;
};

}  // namespace

Result<std::unique_ptr<Suggester>> MakeSuggester(const SearchSpace& space,
                                                 model::Algorithm algorithm, model::GoalType goal,
                                                 std::uint64_t seed) {
  switch (algorithm) {
    case model::Algorithm::kGridSearch: {
      const Result<std::vector<Assignment>> grid = space.Grid(1);
      if (!grid.ok()) {
        return grid.status();
      }
      return std::unique_ptr<Suggester>(std::make_unique<GridSuggester>(space));
    }
    case model::Algorithm::kRandomSearch:
      return std::unique_ptr<Suggester>(std::make_unique<RandomSuggester>(space, seed));
    case model::Algorithm::kUnspecified:
      return MakeBayesianSuggester(ConditionalSpace::Unconditional(space), goal, seed);
    case model::Algorithm::kPopulationBasedTraining:
      break;
  }
  return Status::InvalidArgument(
      fmt::format("trainyard does not run the {} algorithm; use ALGORITHM_UNSPECIFIED (Bayesian), "
                  "GRID_SEARCH or RANDOM_SEARCH",
                  model::AlgorithmName(algorithm)));
}

}  // namespace trainyard::tuning
