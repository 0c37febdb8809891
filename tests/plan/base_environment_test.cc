#include "plan/base_environment.h"

#include <gtest/gtest.h>

namespace trainyard::plan {
namespace {

TEST(MatchesVariable, NamesAndPrefixes) {
  struct Case {
    std::string_view pattern;
    std::string_view name;
    bool matches;
  };
  for (const Case& c : std::vector<Case>{{"PATH", "PATH", true},
                                         {"PATH", "PATHS", false},
                                         {"PATH", "path", false},
                                         {"LC_*", "LC_ALL", true},
                                         {"LC_*", "LC_", true},
                                         {"LC_*", "LANG", false},
                                         {"*", "ANYTHING", true}}) {
    EXPECT_EQ(MatchesVariable(c.pattern, c.name), c.matches) << c.pattern << " " << c.name;
  }
}

TEST(CheckPassedPatterns, AcceptsNamesAndPrefixesOnly) {
  EXPECT_TRUE(CheckPassedPatterns({}).ok());
  EXPECT_TRUE(CheckPassedPatterns({"WANDB_API_KEY", "NCCL_*", "_X1"}).ok());
  for (const char* bad : {"", "*", "1ABC", "A-B", "A=B", "A*B", "A**", "A B"}) {
    const Status status = CheckPassedPatterns({"OK", bad});
    EXPECT_EQ(status.code(), Code::kInvalidArgument) << bad;
    ASSERT_EQ(status.violations().size(), 1U) << bad;
    EXPECT_EQ(status.violations()[0].field, "pass-env");
    EXPECT_NE(status.violations()[0].description.find(std::string("'") + bad + "'"),
              std::string::npos);
  }
}

TEST(JobBaseEnvironment, PassesOnlyTheListedVariablesInOrder) {
  const EnvironmentPairs server = {{"TRAINYARD_TOKEN", "ty_secret"},
                                   {"PATH", "/usr/bin"},
                                   {"AWS_SECRET_ACCESS_KEY", "k"},
                                   {"LC_ALL", "C.UTF-8"},
                                   {"HOME", "/root"},
                                   {"NCCL_DEBUG", "INFO"},
                                   {"TZ", "UTC"},
                                   {"REQUESTS_CA_BUNDLE", "/etc/ca.pem"}};
  EXPECT_EQ(JobBaseEnvironment(server, {}),
            (EnvironmentPairs{
                {"PATH", "/usr/bin"}, {"LC_ALL", "C.UTF-8"}, {"HOME", "/root"}, {"TZ", "UTC"}}));
  EXPECT_EQ(JobBaseEnvironment(server, {"NCCL_*", "REQUESTS_CA_BUNDLE"}),
            (EnvironmentPairs{{"PATH", "/usr/bin"},
                              {"LC_ALL", "C.UTF-8"},
                              {"HOME", "/root"},
                              {"NCCL_DEBUG", "INFO"},
                              {"TZ", "UTC"},
                              {"REQUESTS_CA_BUNDLE", "/etc/ca.pem"}}));
}

TEST(JobBaseEnvironment, ARunAsUserGetsItsOwnIdentity) {
  const EnvironmentPairs server = {{"HOME", "/root"}, {"PATH", "/usr/bin"}, {"USER", "root"}};
  EXPECT_EQ(JobBaseEnvironment(server, {}, "trainyard-job", "/var/lib/trainyard-job"),
            (EnvironmentPairs{{"HOME", "/var/lib/trainyard-job"},
                              {"PATH", "/usr/bin"},
                              {"USER", "trainyard-job"},
                              {"LOGNAME", "trainyard-job"}}));
}

}  // namespace
}  // namespace trainyard::plan
