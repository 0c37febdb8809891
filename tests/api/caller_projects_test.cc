// The projects the console's picker offers (trainyard v1 caller, issue #36): a scoped token's own
// projects; every project that holds something, plus "default", for a spanning role or a server
// without tokens.
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/trainyard/caller.h"

namespace trainyard::server {
namespace {

using access::Grant;
using access::Principal;
using access::Role;
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
    ::testing::Values(VisibleCase{"NoTokensNothingHeld", std::nullopt, {}, {"default"}, true},
                      VisibleCase{"NoTokensHeldSortedOnceWithDefault",
                                  std::nullopt,
                                  {"p2", "alpha", "p2", "default"},
                                  {"alpha", "default", "p2"},
                                  true},
                      VisibleCase{
                          "ScopedTokenSeesItsGrantsOnly",
                          Principal{"v", {Grant{Role::kViewer, "ml"}, Grant{Role::kEditor, "cv"}}},
                          {"other"},
                          {"cv", "ml"}},
                      VisibleCase{"ScopedTokenWithoutJobsStillSeesItsProject",
                                  Principal{"v", {Grant{Role::kViewer, "empty"}}},
                                  {},
                                  {"empty"}},
                      VisibleCase{"AdminSeesEveryHeldProject",
                                  Principal{"a", {Grant{Role::kAdmin, ""}}},
                                  {"x", "y"},
                                  {"default", "x", "y"},
                                  true},
                      VisibleCase{"NoGrantsNothing", Principal{"n", {}}, {"x"}, {}}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::server
