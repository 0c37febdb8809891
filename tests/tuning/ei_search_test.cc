// The acquisition search's treatment of the cube's bounds (tuning/ei_search.h).
#include "tuning/ei_search.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace trainyard::tuning
