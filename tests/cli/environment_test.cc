// Which server and project a verb talks to: the flag, else the environment, else the default.
#include "cli/commands/environment.h"

#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace trainyard::cli {
namespace {

struct TargetCase {
  std::string name;
  std::optional<std::string> flag;  // --server and --project
  std::optional<std::string> env;   // $TRAINYARD_SERVER and $TRAINYARD_PROJECT
  std::string server;
  std::string project;
};

class ResolveTest : public ::testing::TestWithParam<TargetCase> {};

TEST_P(ResolveTest, PrefersFlagThenEnvironmentThenDefault) {
  const TargetCase& c = GetParam();
  const Environment env{.server = c.env, .project = c.env};
  EXPECT_EQ(ResolveServer(c.flag, env), c.server);
  EXPECT_EQ(ResolveProject(c.flag, env), c.project);
}

INSTANTIATE_TEST_SUITE_P(
    Sources, ResolveTest,
    ::testing::Values(TargetCase{"Flag", "from-flag", "from-env", "from-flag", "from-flag"},
                      TargetCase{"Environment", std::nullopt, "from-env", "from-env", "from-env"},
                      TargetCase{"Default", std::nullopt, std::nullopt, "http://127.0.0.1:8470/",
                                 "default"},
                      TargetCase{"EmptyFlagCountsAsUnset", "", "from-env", "from-env", "from-env"},
                      TargetCase{"EmptyEnvironmentCountsAsUnset", std::nullopt, "",
                                 "http://127.0.0.1:8470/", "default"}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::cli
