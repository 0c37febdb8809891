// Which projects a caller may see (access/visible_projects.h; the console's picker, issue #36): a
// scoped token's own projects; every project that holds something, plus "default", for a spanning
// role or a server without tokens.
#include "access/visible_projects.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::access {
namespace {

using Projects = std::vector<std::string>;

struct VisibleCase {
  std::string name;
  std::optional<Principal> caller;
  Projects held;
  Projects expected;
  bool all = false;
};

class VisibleProjectsTest : public ::testing::TestWithParam<VisibleCase> {};

TEST_P(VisibleProjectsTest, OffersWhatTheCallerMaySee) {
  const VisibleCase& tc = GetParam();
  EXPECT_EQ(VisibleProjects(tc.caller, tc.held), tc.expected);
  EXPECT_EQ(SeesAllProjects(tc.caller), tc.all);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, VisibleProjectsTest,
    ::testing::Values(
        VisibleCase{"NoTokensNothingHeld", std::nullopt, {}, {"default"}, true},
        VisibleCase{"NoTokensHeldSortedOnceWithDefault",
                    std::nullopt,
                    {"p2", "alpha", "p2", "default"},
                    {"alpha", "default", "p2"},
                    true},
        VisibleCase{"ScopedTokenSeesItsGrantsOnly",
                    Principal{"v", {Grant{Role::kViewer, "ml"}, Grant{Role::kEditor, "cv"}}},
                    {"other"},
                    {"cv", "ml"}},
        VisibleCase{"ScopedTokenTwoRolesInOneProjectSeesItOnce",
                    Principal{"v", {Grant{Role::kViewer, "ml"}, Grant{Role::kEditor, "ml"}}},
                    {},
                    {"ml"}},
        VisibleCase{"ScopedTokenWithoutJobsStillSeesItsProject",
                    Principal{"v", {Grant{Role::kViewer, "empty"}}},
                    {},
                    {"empty"}},
        VisibleCase{"ScopedTokenIsNotOfferedDefault",
                    Principal{"v", {Grant{Role::kEditor, "ml"}}},
                    {"default"},
                    {"ml"}},
        VisibleCase{"AdminSeesEveryHeldProject",
                    Principal{"a", {Grant{Role::kAdmin, ""}}},
                    {"x", "y"},
                    {"default", "x", "y"},
                    true},
        VisibleCase{"AdminBesideAScopedGrantSeesBoth",
                    Principal{"a", {Grant{Role::kViewer, "z"}, Grant{Role::kAdmin, ""}}},
                    {"x"},
                    {"default", "x", "z"},
                    true},
        VisibleCase{"NoGrantsNothing", Principal{"n", {}}, {"x"}, {}}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::access
