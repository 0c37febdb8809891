#include "tuning/bayesian_suggester.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "tuning/ei_search.h"
#include "tuning/gaussian_process.h"
#include "tuning/halton.h"
#include "tuning/output_warping.h"
#include "tuning/random.h"
#include "tuning/suggest_support.h"

namespace trainyard::tuning {
namespace {

// Stream tags, so the design and the acquisition search never share numbers.
constexpr std::uint64_t kDesignStream = 0x48414c54;  // "HALT"
constexpr std::uint64_t kSearchStream = 0x4550494d;  // "EPIM"
// How many of the best observations seed local candidates.
constexpr std::size_t kIncumbents = 5;
// The most observations the GP's hyperparameters are fitted to (FitSubset): the fit is most of
// a Suggest's time and grows as n^3; the posterior is conditioned on every observation.
constexpr std::size_t kFitLimit = 100;

// A study's history in the unit cube, with larger values better.
struct UnitHistory {
  std::vector<double> points;  // completed trials with a finite objective, row-major
  std::vector<double> values;
  std::vector<std::vector<double>> pending;  // running and failed trials, and earlier picks
};

class BayesianSuggester final : public Suggester {
 public:
  BayesianSuggester(ConditionalSpace space, model::GoalType goal, std::uint64_t seed)
      : space_(std::move(space)),
        sign_(goal == model::GoalType::kMinimize ? -1.0 : 1.0),
        seed_(seed) {}

  Result<std::vector<Assignment>> Suggest(const StudyHistory& history, int count) override {
    std::vector<Assignment> out;
    TriedPoints tried(history);
    UnitHistory data = Collect(history);
    const std::size_t dims = space_.flat().unit_dimensions();
    // d + 1 design points for d parameters (a CATEGORICAL one counts once, whatever its
    // number of values and so of unit coordinates).
    const std::size_t design_size = std::max<std::size_t>(2, space_.flat().params().size() + 1);
    const std::size_t trials = history.completed.size() + history.running.size();
    Rng rng(MixSeed({seed_, kSearchStream, trials}));
    std::optional<GaussianProcess> gp;
    double best = 0;
    std::vector<std::vector<double>> incumbents;
    for (int j = 0; j < count; ++j) {
      const std::size_t index = trials + static_cast<std::size_t>(j);
      std::optional<Assignment> point;
      if (index < design_size || data.values.size() < 2) {
        Assignment design = space_.Canonical(
            space_.flat().FromUnit(ScrambledHalton(index, dims, MixSeed({seed_, kDesignStream}))));
        if (!tried.Contains(design)) {
          point = std::move(design);
        }
      } else {
        if (!gp) {
          // The GP models the warped values; the warping keeps their order and the best one.
          data.values = HalfRankWarp(data.values);
          gp.emplace(GaussianProcess::Fit(data.points, dims, data.values,
                                          data.values.size() > kFitLimit
                                              ? FitSubset(data.values, kFitLimit)
                                              : std::vector<std::size_t>()));
          // Kriging believer: pending points count as observed at the posterior mean, so the
          // variance, and with a raised incumbent the improvement, drop around them.
          best = *std::ranges::max_element(data.values);
          for (const std::vector<double>& unit : data.pending) {
            best = std::max(best, gp->Believe(unit));
          }
          incumbents = Incumbents(data, dims);
        }
        point = MaximizeExpectedImprovement(space_, *gp, best, incumbents, tried, rng);
      }
      if (!point) {
        point = AnyUntried(space_.flat(), tried, rng);
      }
      if (!point) {
        break;  // a finite space, every point tried
      }
      std::vector<double> unit = *space_.flat().ToUnit(*point);
      if (gp) {
        best = std::max(best, gp->Believe(unit));
      } else {
        data.pending.push_back(std::move(unit));
      }
      tried.Add(*point);
      out.push_back(std::move(*point));
    }
    return out;
  }

 private:
  UnitHistory Collect(const StudyHistory& history) const {
    UnitHistory data;
    for (const Observation& observation : history.completed) {
      Result<std::vector<double>> unit = space_.flat().ToUnit(observation.params);
      if (!unit.ok()) {
        continue;  // a resumed study's trial from another space tells nothing here
      }
      if (std::isfinite(observation.objective)) {
        data.points.insert(data.points.end(), unit->begin(), unit->end());
        data.values.push_back(sign_ * observation.objective);
      } else {
        data.pending.push_back(*std::move(unit));
      }
    }
    for (const Assignment& running : history.running) {
      Result<std::vector<double>> unit = space_.flat().ToUnit(running);
      if (unit.ok()) {
        data.pending.push_back(*std::move(unit));
      }
    }
    return data;
  }

  // The unit points of the best observations, best first.
  static std::vector<std::vector<double>> Incumbents(const UnitHistory& data, std::size_t dims) {
    std::vector<std::size_t> order(data.values.size());
    std::iota(order.begin(), order.end(), 0);
    std::ranges::stable_sort(
        order, [&](std::size_t a, std::size_t b) { return data.values[a] > data.values[b]; });
    order.resize(std::min(order.size(), kIncumbents));
    std::vector<std::vector<double>> out;
    for (const std::size_t i : order) {
      const auto begin = data.points.begin() + static_cast<std::ptrdiff_t>(i * dims);
      out.emplace_back(begin, begin + static_cast<std::ptrdiff_t>(dims));
    }
    return out;
  }

  ConditionalSpace space_;  // suggestions are its canonical points (bar AnyUntried's)
  double sign_;             // +1 to maximise the objective, -1 to minimise it
  std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<Suggester> MakeBayesianSuggester(const ConditionalSpace& space,
                                                 model::GoalType goal, std::uint64_t seed) {
  return std::make_unique<BayesianSuggester>(space, goal, seed);
}

}  // namespace trainyard::tuning
