#include "tuning/multi_objective.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "tuning/random.h"

namespace trainyard::tuning {
namespace {

// The weight stream's purpose word, so it never meets the single-objective algorithm's draws.
constexpr std::uint64_t kWeightStream = 0x5061'7245'474f'0001ULL;  // "ParEGO" 1

// Whether `a` is at least as good as `b` in every metric and better in one.
bool Dominates(const std::vector<double>& a, const std::vector<double>& b,
               std::span<const model::GoalType> goals) {
  bool better = false;
  for (std::size_t j = 0; j < goals.size(); ++j) {
    const double gain = goals[j] == model::GoalType::kMaximize ? a[j] - b[j] : b[j] - a[j];
    if (gain < 0) {
      return false;
    }
    better |= gain > 0;
  }
  return better;
}

class ScalarisingSuggester final : public Suggester {
 public:
  ScalarisingSuggester(std::vector<model::GoalType> goals, std::uint64_t seed,
                       std::unique_ptr<Suggester> single)
      : goals_(std::move(goals)), seed_(seed), single_(std::move(single)) {}

  Result<std::vector<Assignment>> Suggest(const StudyHistory& history, int count) override {
    StudyHistory asked;
    asked.running = history.running;
    std::vector<std::vector<double>> values;
    for (const Observation& observation : history.completed) {
      if (observation.more.size() + 1 != goals_.size()) {
        asked.running.push_back(observation.params);
        continue;
      }
      std::vector<double> row = {observation.objective};
      row.insert(row.end(), observation.more.begin(), observation.more.end());
      values.push_back(std::move(row));
      asked.completed.push_back({.params = observation.params});
    }
    std::vector<Assignment> out;
    while (static_cast<int>(out.size()) < count) {
      const std::size_t trials = history.completed.size() + history.running.size() + out.size();
      const std::vector<double> scalars =
          Scalarise(values, goals_, ScalarisationWeights(seed_, trials, goals_.size()));
      for (std::size_t i = 0; i < scalars.size(); ++i) {
        asked.completed[i].objective = scalars[i];
      }
      Result<std::vector<Assignment>> next = single_->Suggest(asked, 1);
      if (!next.ok()) {
        return next.status();
      }
      if (next->empty()) {
        break;  // exhausted
      }
      asked.running.push_back(next->front());
      out.push_back(std::move(next->front()));
    }
    return out;
  }

 private:
  std::vector<model::GoalType> goals_;
  std::uint64_t seed_;
  std::unique_ptr<Suggester> single_;
};

}  // namespace

std::vector<std::size_t> ParetoFront(std::span<const std::vector<double>> values,
                                     std::span<const model::GoalType> goals) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const bool dominated = std::ranges::any_of(values, [&](const std::vector<double>& other) {
      return Dominates(other, values[i], goals);
    });
    if (!dominated) {
      front.push_back(i);
    }
  }
  return front;
}

std::vector<double> ScalarisationWeights(std::uint64_t seed, std::size_t trial_count,
                                         std::size_t objectives) {
  // Normalised standard exponentials are uniform on the simplex.
  Rng rng(MixSeed({seed, kWeightStream, trial_count}));
  std::vector<double> weights(objectives);
  double sum = 0;
  for (double& weight : weights) {
    weight = -std::log1p(-rng.Uniform()) + 1e-12;  // positive: Uniform() < 1
    sum += weight;
  }
  for (double& weight : weights) {
    weight /= sum;
  }
  return weights;
}

std::vector<double> Scalarise(std::span<const std::vector<double>> values,
                              std::span<const model::GoalType> goals,
                              std::span<const double> weights) {
  std::vector<double> low(goals.size(), 0);
  std::vector<double> high(goals.size(), 0);
  for (std::size_t j = 0; j < goals.size(); ++j) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      low[j] = i == 0 ? values[i][j] : std::min(low[j], values[i][j]);
      high[j] = i == 0 ? values[i][j] : std::max(high[j], values[i][j]);
    }
  }
  std::vector<double> out;
  out.reserve(values.size());
  for (const std::vector<double>& row : values) {
    double worst = 0;
    double total = 0;
    for (std::size_t j = 0; j < goals.size(); ++j) {
      const double span = high[j] - low[j];
      double normalised = 0;  // one value over the trials: every trial is as good as the best
      if (span > 0) {
        normalised = goals[j] == model::GoalType::kMaximize ? (high[j] - row[j]) / span
                                                            : (row[j] - low[j]) / span;
      }
      worst = std::max(worst, weights[j] * normalised);
      total += weights[j] * normalised;
    }
    out.push_back(worst + kChebyshevRho * total);
  }
  return out;
}

std::unique_ptr<Suggester> MakeScalarisingSuggester(std::vector<model::GoalType> goals,
                                                    std::uint64_t seed,
                                                    std::unique_ptr<Suggester> single) {
  return std::make_unique<ScalarisingSuggester>(std::move(goals), seed, std::move(single));
}

}  // namespace trainyard::tuning
