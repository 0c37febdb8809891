// The acquisition search (tuning/ei_search.h): its treatment of the cube's bounds, and of
// conditional parameters.
#include "tuning/ei_search.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tuning/conditional_space.h"
#include "tuning/gaussian_process.h"
#include "tuning/random.h"
#include "tuning/spaces.h"
#include "tuning/suggest.h"

namespace trainyard::tuning {
namespace {

TEST(ReflectIntoUnitTest, FoldsAtTheBoundCrossed) {
  struct Case {
    double in;
    double out;
  };
  for (const Case& c : std::vector<Case>{
           {0.3, 0.3}, {0, 0}, {1, 1}, {-0.1, 0.1}, {1.2, 0.8}, {-0.75, 0.75}, {2.5, 0}, {-3, 0}}) {
    EXPECT_DOUBLE_EQ(ReflectIntoUnit(c.in), c.out) << c.in;
  }
}

// A minimum close to an edge (x1 = 0.02 of its range): the study narrows in on it without
// proposing points exactly on the edge again and again, as clamped candidates made it do.
TEST(EiSearchTest, AMinimumNearAnEdgeIsNotApproachedAlongTheEdge) {
  model::HyperparameterSpec spec;
  spec.params = {test_spaces::Double("a", 0, 1), test_spaces::Double("b", 0, 1),
                 test_spaces::Double("c", 0, 1)};
  const SearchSpace space = *SearchSpace::FromSpec(spec);
  std::unique_ptr<Suggester> suggester =
      *MakeSuggester(space, model::Algorithm::kUnspecified, model::GoalType::kMinimize, 7);
  StudyHistory history;
  int on_bound = 0;
  double best = std::numeric_limits<double>::infinity();
  for (int trial = 0; trial < 30; ++trial) {
    Assignment point = std::move((*suggester->Suggest(history, 1))[0]);
    double value = 0;
    bool edge = false;
    for (std::size_t i = 0; i < point.size(); ++i) {
      const double centre = i == 0 ? 0.02 : 0.5;
      value += (point[i].number - centre) * (point[i].number - centre);
      edge = edge || point[i].number == 0 || point[i].number == 1;
    }
    on_bound += edge ? 1 : 0;
    best = std::min(best, value);
    history.completed.push_back({.params = std::move(point), .objective = value});
  }
  EXPECT_LE(on_bound, 3);
  EXPECT_LT(best, 1e-3);
}

// optimizer {sgd, adam}; momentum only for sgd, beta only for adam; lr always. The search
// proposes canonical points only (inactive parameters at their stand-ins): elsewhere the GP has
// seen no trial, its variance and so EI are largest there, and a search that looked there picked
// points the study could not run as such.
TEST(EiSearchTest, ProposesCanonicalPointsOfAConditionalSpace) {
  using test_spaces::Categorical;
  using test_spaces::Double;
  const std::vector<model::ParameterCondition> conditions = {
      {.parameter = "momentum", .parent = "optimizer", .parent_categories = {"sgd"}},
      {.parameter = "beta", .parent = "optimizer", .parent_categories = {"adam"}}};
  const ConditionalSpace space = *ConditionalSpace::Make(
      test_spaces::Spec({Categorical("optimizer", {"sgd", "adam"}), Double("momentum", 0, 1),
                         Double("beta", 0, 1), Double("lr", 0, 1)}),
      conditions);
  // Eight canonical trials, half each way, of a function best at sgd, momentum 0.7, lr 0.4.
  std::vector<double> points;
  std::vector<double> values;
  Rng rng(11);
  for (int i = 0; i < 8; ++i) {
    Assignment full =
        space.flat().FromUnit(std::vector<double>{i % 2 == 0 ? 1.0 : 0.0, i % 2 == 0 ? 0.0 : 1.0,
                                                  rng.Uniform(), rng.Uniform(), rng.Uniform()});
    full = space.Canonical(full);
    const std::vector<double> unit = *space.flat().ToUnit(full);
    points.insert(points.end(), unit.begin(), unit.end());
    const double lr = full[3].number;
    const double momentum = full[1].number;
    values.push_back(full[0].category == "sgd"
                         ? -(momentum - 0.7) * (momentum - 0.7) - (lr - 0.4) * (lr - 0.4)
                         : -0.5 - (lr - 0.4) * (lr - 0.4));
  }
  const std::size_t dims = space.flat().unit_dimensions();
  const GaussianProcess gp = GaussianProcess::Fit(points, dims, values);
  const double best = *std::ranges::max_element(values);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    Rng search(seed);
    const TriedPoints tried{StudyHistory{}};
    const std::optional<Assignment> point =
        MaximizeExpectedImprovement(space, gp, best, {}, tried, search);
    ASSERT_TRUE(point.has_value());
    const std::vector<bool> active = space.Active(*point);
    for (std::size_t i = 0; i < point->size(); ++i) {
      if (!active[i]) {
        EXPECT_EQ((*point)[i], space.Canonical(*point)[i])
            << "seed " << seed << ": inactive " << (*point)[i].name << " = " << (*point)[i].Text();
      }
    }
  }
}

}  // namespace
}  // namespace trainyard::tuning
