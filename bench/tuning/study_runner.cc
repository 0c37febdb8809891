#include "study_runner.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "hypervolume.h"
#include "tuning/conditional_suggester.h"
#include "tuning/study_policy.h"
#include "tuning/suggest.h"

namespace trainyard::bench {
namespace {

double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

const std::vector<Variant>& KnownVariants() {
  static const std::vector<Variant> kVariants = {
      {"gp", model::Algorithm::kUnspecified, 1},
      {"random", model::Algorithm::kRandomSearch, 1},
      {"gp-batch4", model::Algorithm::kUnspecified, 4},
  };
  return kVariants;
}

model::HyperparameterSpec SpecFor(const TestFunction& function, const Variant& variant,
                                  int trials) {
  model::HyperparameterSpec spec;
  spec.goal = model::GoalType::kMinimize;
  spec.algorithm = variant.algorithm;
  spec.max_trials = trials;
  spec.max_parallel_trials = variant.batch;
  spec.hyperparameter_metric_tag = "objective";
  spec.params = function.params;
  return spec;
}

Result<tuning::ConditionalSpace> SpaceFor(const TestFunction& function) {
  return tuning::ConditionalSpace::Make(SpecFor(function, Variant{}, 1), function.conditions);
}

Result<std::vector<TrialRecord>> RunStudy(const TestFunction& function, const Variant& variant,
                                          std::uint64_t seed, int trials) {
  const model::HyperparameterSpec spec = SpecFor(function, variant, trials);
  Result<tuning::ConditionalSpace> space = SpaceFor(function);
  if (!space.ok()) {
    return space.status();
  }
  // A two-objective function runs as a study with two metrics: both minimised, the second's
  // values kept beside the trials as the executor keeps them (JobExtras::trial_measurements).
  const std::optional<TwoObjectives>& two = function.two_objectives;
  std::vector<model::GoalType> extra_goals;
  std::optional<HypervolumeRegret> hypervolume;
  if (two) {
    extra_goals.push_back(model::GoalType::kMinimize);
    hypervolume.emplace(two->reference, two->max_hypervolume);
  }
  std::vector<model::TrialMeasurement> measurements;
  // The trials as the job records them, each with its active parameters only, read back into
  // observations by the executor's HistoryOf before each call.
  std::vector<model::HyperparameterOutput> done;
  std::vector<TrialRecord> records;
  records.reserve(static_cast<std::size_t>(trials));
  double best_observed = std::numeric_limits<double>::infinity();
  double best_truth = best_observed;
  Observer observer(function, seed);
  while (std::cmp_less(done.size(), trials)) {
    Result<std::unique_ptr<tuning::Suggester>> suggester =
        tuning::MakeStudySuggester(*space, spec.algorithm, spec.goal, seed, extra_goals);
    if (!suggester.ok()) {
      return suggester.status();
    }
    const tuning::StudyHistory history = tuning::HistoryOf(*space, done, measurements);
    if (history.completed.size() != done.size()) {
      return Status::Internal(fmt::format("{} of {} trials did not read back",
                                          done.size() - history.completed.size(), done.size()));
    }
    const int count = std::min(variant.batch, trials - static_cast<int>(done.size()));
    const double cpu_start = ThreadCpuMs();
    const auto wall_start = std::chrono::steady_clock::now();
    Result<std::vector<tuning::Assignment>> suggested = (*suggester)->Suggest(history, count);
    const std::chrono::duration<double, std::milli> wall =
        std::chrono::steady_clock::now() - wall_start;
    const double cpu_ms = ThreadCpuMs() - cpu_start;
    if (!suggested.ok()) {
      return suggested.status();
    }
    if (suggested->empty()) {
      return Status::Internal(
          fmt::format("{} suggested nothing after {} trials", variant.name, done.size()));
    }
    const int observed = static_cast<int>(done.size());
    // More than asked for would be a bug too, but the study stops at `trials` either way.
    for (const tuning::Assignment& assignment : *suggested) {
      if (std::cmp_greater_equal(done.size(), trials)) {
        break;
      }
      if (assignment.size() != function.params.size()) {
        return Status::Internal(fmt::format("{} suggested {} values for {} parameters",
                                            variant.name, assignment.size(),
                                            function.params.size()));
      }
      const tuning::Assignment trial = space->Restrict(assignment);
      const std::vector<double> x = ArgumentsOf(function, trial);
      const Observer::Value value = observer.Observe(x);
      if (value.observed < best_observed) {
        best_observed = value.observed;
        best_truth = value.truth;
      }
      const double regret = hypervolume ? hypervolume->Add({value.truth, value.second})
                                        : best_truth - function.minimum;
      records.push_back({.regret = regret,
                         .suggest_ms = wall.count(),
                         .suggest_cpu_ms = cpu_ms,
                         .observed = observed,
                         .on_bound = OnBound(function, x)});
      model::HyperparameterOutput& output = done.emplace_back();
      output.trial_id = std::to_string(done.size());
      for (const tuning::ParameterValue& param : trial) {
        output.hyperparameters.emplace(param.name, param.Text());
      }
      output.final_metric = model::HyperparameterMetric{.objective_value = value.observed};
      output.state = model::JobState::kSucceeded;
      if (two) {
        measurements.push_back({.trial_id = output.trial_id, .values = {value.second}});
      }
    }
  }
  return records;
}

}  // namespace trainyard::bench
