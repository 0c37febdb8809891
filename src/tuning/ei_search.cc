#include "tuning/ei_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "tuning/acquisition.h"

namespace trainyard::tuning {
namespace {

using model::ParameterType;

constexpr std::size_t kRandomCandidates = 1000;
constexpr std::size_t kPerturbationsPerIncumbent = 100;
// Perturbations alternate between these half-widths (in unit coordinates).
constexpr double kWidePerturbation = 0.1;
constexpr double kNarrowPerturbation = 0.02;
constexpr std::size_t kLocalStarts = 5;
constexpr int kRefineRounds = 3;
constexpr int kGradientSteps = 20;
constexpr double kFirstStep = 0.05;
constexpr double kLargestStep = 0.25;
constexpr double kSmallestStep = 1e-6;

// Where a parameter's coordinates sit in a unit point.
struct Slot {
  std::size_t param = 0;
  std::size_t offset = 0;
};

// The EI landscape over unit points of one space.
class Landscape {
 public:
  Landscape(const ConditionalSpace& space, const GaussianProcess& gp, double best)
      : conditions_(space),
        space_(space.flat()),
        gp_(gp),
        best_(best),
        continuous_(space_.unit_dimensions(), false),
        param_of_(space_.unit_dimensions()) {
    std::size_t offset = 0;
    for (std::size_t i = 0; i < space_.params().size(); ++i) {
      const model::ParameterSpec& param = space_.params()[i];
      const std::size_t width =
          param.type == ParameterType::kCategorical ? param.categorical_values.size() : 1;
      std::fill_n(param_of_.begin() + static_cast<std::ptrdiff_t>(offset), width, i);
      if (param.type == ParameterType::kDouble) {
        continuous_[offset] = true;
      } else {
        discrete_.push_back({.param = i, .offset = offset});
      }
      offset += width;
    }
  }

  std::size_t dims() const { return continuous_.size(); }

  // `unit` moved to the valid point it stands for.
  void Snap(std::span<double> unit) const {
    if (conditions_.conditional()) {
      const std::vector<double> snapped =
          *space_.ToUnit(conditions_.Canonical(space_.FromUnit(unit)));
      std::copy(snapped.begin(), snapped.end(), unit.begin());
      return;
    }
    if (discrete_.empty()) {
      for (double& u : unit) {
        u = std::clamp(u, 0.0, 1.0);
      }
      return;
    }
    const std::vector<double> snapped = *space_.ToUnit(space_.FromUnit(unit));
    std::copy(snapped.begin(), snapped.end(), unit.begin());
  }

  static double LogEi(const GpPrediction& prediction, double best) {
    const double value =
        LogExpectedImprovement(prediction.mean, std::sqrt(prediction.variance), best).value;
    return std::isnan(value) ? -std::numeric_limits<double>::infinity() : value;
  }

  double Value(std::span<const double> unit) const { return LogEi(gp_.Predict(unit), best_); }

  std::vector<double> Values(std::span<const double> units) const {
    const std::vector<GpPrediction> predictions = gp_.PredictMany(units);
    std::vector<double> out(predictions.size());
    for (std::size_t i = 0; i < predictions.size(); ++i) {
      out[i] = LogEi(predictions[i], best_);
    }
    return out;
  }

  // Local search from a snapped point: gradient steps on DOUBLE coordinates, neighbouring
  // values on the others, until neither improves.
  void Refine(std::vector<double>& unit, double& value) const {
    const bool any_continuous = std::ranges::find(continuous_, true) != continuous_.end();
    for (int round = 0; round < kRefineRounds; ++round) {
      const double before = value;
      if (any_continuous) {
        ClimbGradient(unit, value);
      }
      for (const Slot& slot : discrete_) {
        MoveToBestNeighbour(slot, unit, value);
      }
      // Another round only helps when a discrete move opened a new slope.
      if (discrete_.empty() || !(value > before)) {
        break;
      }
    }
  }

 private:
  // Which parameters are active at `unit` (all of them in a space without conditions).
  std::vector<bool> ActiveAt(std::span<const double> unit) const {
    return conditions_.conditional() ? conditions_.Active(space_.FromUnit(unit))
                                     : std::vector<bool>(space_.params().size(), true);
  }

  // The log-EI gradient over the active DOUBLE coordinates, projected onto the cube; empty when
  // flat.
  std::vector<double> Ascent(std::span<const double> unit) const {
    std::vector<double> d_mean(dims());
    std::vector<double> d_variance(dims());
    const GpPrediction prediction = gp_.Predict(unit, d_mean, d_variance);
    const double stddev = std::sqrt(prediction.variance);
    if (!(stddev > 0)) {
      return {};
    }
    const LogImprovement ei = LogExpectedImprovement(prediction.mean, stddev, best_);
    std::vector<double> ascent(dims(), 0.0);
    double norm = 0;
    const std::vector<bool> active = ActiveAt(unit);
    for (std::size_t i = 0; i < dims(); ++i) {
      if (!continuous_[i] || !active[param_of_[i]]) {
        continue;
      }
      const double g = ei.d_mean * d_mean[i] + ei.d_stddev * d_variance[i] / (2 * stddev);
      if ((unit[i] <= 0 && g < 0) || (unit[i] >= 1 && g > 0) || !std::isfinite(g)) {
        continue;
      }
      ascent[i] = g;
      norm += g * g;
    }
    if (!(norm > 0)) {
      return {};
    }
    for (double& g : ascent) {
      g /= std::sqrt(norm);
    }
    return ascent;
  }

  void ClimbGradient(std::vector<double>& unit, double& value) const {
    double step = kFirstStep;
    std::vector<double> trial(dims());
    for (int iteration = 0; iteration < kGradientSteps && step >= kSmallestStep; ++iteration) {
      const std::vector<double> ascent = Ascent(unit);
      if (ascent.empty()) {
        return;
      }
      for (bool moved = false; !moved && step >= kSmallestStep;) {
        for (std::size_t i = 0; i < dims(); ++i) {
          trial[i] = ReflectIntoUnit(unit[i] + step * ascent[i]);
        }
        const double trial_value = Value(trial);
        if (trial_value > value) {
          unit = trial;
          value = trial_value;
          step = std::min(2 * step, kLargestStep);
          moved = true;
        } else {
          step /= 2;
        }
      }
    }
  }

  void MoveToBestNeighbour(const Slot& slot, std::vector<double>& unit, double& value) const {
    const model::ParameterSpec& param = space_.params()[slot.param];
    const Assignment here = space_.FromUnit(unit);
    if (conditions_.conditional() && !conditions_.Active(here)[slot.param]) {
      return;  // its value is the stand-in whatever it is set to
    }
    std::vector<Assignment> neighbours;
    const auto with = [&](auto change) {
      Assignment next = here;
      change(next[slot.param]);
      neighbours.push_back(std::move(next));
    };
    const double number = here[slot.param].number;
    switch (param.type) {
      case ParameterType::kInteger:
        for (const double next : {number - 1, number + 1}) {
          if (next >= *param.min_value && next <= *param.max_value) {
            with([&](ParameterValue& v) { v.number = next; });
          }
        }
        break;
      case ParameterType::kDiscrete: {
        const auto& values = param.discrete_values;
        const auto at =
            static_cast<std::size_t>(std::ranges::find(values, number) - values.begin());
        if (at > 0) {
          with([&](ParameterValue& v) { v.number = values[at - 1]; });
        }
        if (at + 1 < values.size()) {
          with([&](ParameterValue& v) { v.number = values[at + 1]; });
        }
        break;
      }
      case ParameterType::kCategorical:
        for (const std::string& category : param.categorical_values) {
          if (category != here[slot.param].category) {
            with([&](ParameterValue& v) { v.category = category; });
          }
        }
        break;
      case ParameterType::kDouble:
      case ParameterType::kUnspecified:
        break;
    }
    for (const Assignment& neighbour : neighbours) {
      std::vector<double> next = *space_.ToUnit(conditions_.Canonical(neighbour));
      const double next_value = Value(next);
      if (next_value > value) {
        unit = std::move(next);
        value = next_value;
      }
    }
  }

  const ConditionalSpace& conditions_;
  const SearchSpace& space_;  // conditions_.flat()
  const GaussianProcess& gp_;
  double best_;
  std::vector<bool> continuous_;       // per unit coordinate: a DOUBLE parameter's
  std::vector<Slot> discrete_;         // the other parameters
  std::vector<std::size_t> param_of_;  // per unit coordinate: its parameter's index
};

// Random points and perturbations of the incumbents, snapped; row-major.
std::vector<double> Candidates(const Landscape& landscape,
                               std::span<const std::vector<double>> incumbents, Rng& rng) {
  const std::size_t dims = landscape.dims();
  const std::size_t count =
      kRandomCandidates + kPerturbationsPerIncumbent * std::min(incumbents.size(), kLocalStarts);
  std::vector<double> points(count * dims);
  for (std::size_t c = 0; c < count; ++c) {
    const std::span<double> point(points.data() + c * dims, dims);
    if (c < kRandomCandidates) {
      for (double& u : point) {
        u = rng.Uniform();
      }
    } else {
      const std::size_t k = c - kRandomCandidates;
      const std::vector<double>& centre = incumbents[k / kPerturbationsPerIncumbent];
      const double width = k % 2 == 0 ? kWidePerturbation : kNarrowPerturbation;
      for (std::size_t i = 0; i < dims; ++i) {
        point[i] = ReflectIntoUnit(centre[i] + width * (2 * rng.Uniform() - 1));
      }
    }
    landscape.Snap(point);
  }
  return points;
}

}  // namespace

double ReflectIntoUnit(double u) {
  if (u < 0) {
    u = -u;
  }
  if (u > 1) {
    u = 2 - u;
  }
  return std::clamp(u, 0.0, 1.0);
}

std::optional<Assignment> MaximizeExpectedImprovement(
    const ConditionalSpace& space, const GaussianProcess& gp, double best,
    std::span<const std::vector<double>> incumbents, const TriedPoints& tried, Rng& rng) {
  const Landscape landscape(space, gp, best);
  const std::size_t dims = landscape.dims();
  std::vector<double> points = Candidates(landscape, incumbents, rng);
  std::vector<double> values = landscape.Values(points);
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order,
                           [&](std::size_t a, std::size_t b) { return values[a] > values[b]; });

  // Refine the best few distinct candidates; the refined points join the ranking.
  std::vector<std::vector<double>> starts;
  for (const std::size_t c : order) {
    if (starts.size() == kLocalStarts) {
      break;
    }
    std::vector<double> start(points.begin() + static_cast<std::ptrdiff_t>(c * dims),
                              points.begin() + static_cast<std::ptrdiff_t>((c + 1) * dims));
    if (std::ranges::find(starts, start) == starts.end()) {
      starts.push_back(std::move(start));
    }
  }
  for (std::vector<double>& start : starts) {
    double value = landscape.Value(start);
    landscape.Refine(start, value);
    points.insert(points.end(), start.begin(), start.end());
    values.push_back(value);
    order.push_back(values.size() - 1);
  }
  std::ranges::stable_sort(order,
                           [&](std::size_t a, std::size_t b) { return values[a] > values[b]; });
  for (const std::size_t c : order) {
    Assignment point =
        space.flat().FromUnit(std::span<const double>(points.data() + c * dims, dims));
    if (!tried.Contains(point)) {
      return point;
    }
  }
  return std::nullopt;
}

}  // namespace trainyard::tuning
