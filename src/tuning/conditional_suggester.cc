#include "tuning/conditional_suggester.h"

#include <cstddef>
#include <utility>
#include <vector>

#include "base/fnv1a.h"
#include "tuning/bayesian_suggester.h"
#include "tuning/multi_objective.h"
#include "tuning/suggest_support.h"

namespace trainyard::tuning {
namespace {

// How many suggestions passed over, per point asked for, before the space counts as exhausted: a
// grid whose points differ only in inactive parameters collapses by at most the product of those
// parameters' value counts, far below this for any grid a study runs.
constexpr std::size_t kMaxPassedOver = 4096;

class ConditionalSuggester final : public Suggester {
 public:
  ConditionalSuggester(ConditionalSpace space, std::unique_ptr<Suggester> flat)
      : space_(std::move(space)), flat_(std::move(flat)) {}

  Result<std::vector<Assignment>> Suggest(const StudyHistory& history, int count) override {
    std::vector<Assignment> out;
    StudyHistory asked = history;
    TriedPoints tried(history);
    std::size_t passed_over = 0;
    while (static_cast<int>(out.size()) < count) {
      // All that are still wanted at once: the GP then fits once for a batch.
      Result<std::vector<Assignment>> next =
          flat_->Suggest(asked, count - static_cast<int>(out.size()));
      if (!next.ok()) {
        return next.status();
      }
      if (next->empty()) {
        break;  // exhausted
      }
      for (Assignment& raw : *next) {
        Assignment point = space_.Canonical(raw);
        asked.running.push_back(std::move(raw));
        if (tried.Contains(point)) {
          ++passed_over;
          continue;
        }
        tried.Add(point);
        asked.running.push_back(point);
        out.push_back(std::move(point));
      }
      if (passed_over > kMaxPassedOver * static_cast<std::size_t>(count)) {
        break;
      }
    }
    return out;
  }

 private:
  ConditionalSpace space_;
  std::unique_ptr<Suggester> flat_;
};

}  // namespace

Result<std::unique_ptr<Suggester>> MakeStudySuggester(
    const ConditionalSpace& space, model::Algorithm algorithm, model::GoalType goal,
    std::uint64_t seed, std::span<const model::GoalType> extra_goals) {
  const bool scalarised = !extra_goals.empty() && algorithm == model::Algorithm::kUnspecified;
  // The GP searches the canonical points itself; the others draw flat points, made canonical by
  // the wrapper below.
  Result<std::unique_ptr<Suggester>> flat =
      algorithm == model::Algorithm::kUnspecified
          ? Result<std::unique_ptr<Suggester>>(
                MakeBayesianSuggester(space, scalarised ? model::GoalType::kMinimize : goal, seed))
          : MakeSuggester(space.flat(), algorithm, goal, seed);
  if (flat.ok() && scalarised) {
    std::vector<model::GoalType> goals = {goal};
    goals.insert(goals.end(), extra_goals.begin(), extra_goals.end());
    flat = MakeScalarisingSuggester(std::move(goals), seed, *std::move(flat));
  }
  if (!flat.ok() || !space.conditional()) {
    return flat;
  }
  return std::unique_ptr<Suggester>(
      std::make_unique<ConditionalSuggester>(space, *std::move(flat)));
}

std::uint64_t StudySeed(std::string_view project, std::string_view job_id) {
  return Fnv1a(job_id, Fnv1a("/", Fnv1a(project)));
}

}  // namespace trainyard::tuning
