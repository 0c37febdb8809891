// `trainyard serve`'s flags (app/serve_flags.h): the ones that are not ServeOptions fields as
// given become fields once the subcommand has parsed.
#include "app/serve_flags.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

namespace trainyard::app {
namespace {

struct FlagsCase {
  std::string name;
  std::vector<std::string> args;  // after `serve`
  bool parses;
  bool strict_resources;
  std::chrono::milliseconds stop_grace;
  std::vector<std::pair<std::string, std::string>> python_versions;
};

class ServeFlagsTest : public ::testing::TestWithParam<FlagsCase> {};

TEST_P(ServeFlagsTest, FillTheOptions) {
  const FlagsCase& tc = GetParam();
  CLI::App app;
  CLI::App* serve = app.add_subcommand("serve");
  ServeOptions options;
  AddServeFlags(*serve, options);
  std::vector<std::string> args = {"serve"};
  args.insert(args.end(), tc.args.begin(), tc.args.end());
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses from the back
  bool parsed = true;
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError&) {
    parsed = false;
  }
  ASSERT_EQ(parsed, tc.parses);
  if (!parsed) {
    return;
  }
  EXPECT_EQ(options.strict_resources, tc.strict_resources);
  EXPECT_EQ(options.stop_grace, tc.stop_grace);
  EXPECT_EQ(options.python_versions, tc.python_versions);
}

using std::chrono::milliseconds;

INSTANTIATE_TEST_SUITE_P(
    Flags, ServeFlagsTest,
    ::testing::Values(
        FlagsCase{"Defaults", {}, true, false, milliseconds(10'000), {}},
        FlagsCase{"StrictAccounting",
                  {"--resource-accounting", "strict"},
                  true,
                  true,
                  milliseconds(10'000),
                  {}},
        FlagsCase{"UnknownAccounting", {"--resource-accounting", "fair"}, false},
        FlagsCase{
            "StopGraceInSeconds", {"--stop-grace", "2.5"}, true, false, milliseconds(2'500), {}},
        FlagsCase{"PythonFor",
                  {"--python-for", "3.7=/opt/py37/bin/python", "--python-for", "3.11=python3.11"},
                  true,
                  false,
                  milliseconds(10'000),
                  {{"3.7", "/opt/py37/bin/python"}, {"3.11", "python3.11"}}},
        FlagsCase{"PythonForWithoutPath", {"--python-for", "3.7="}, false},
        FlagsCase{"PythonForWithoutVersion", {"--python-for", "=/usr/bin/python3"}, false},
        FlagsCase{"PythonForWithoutEquals", {"--python-for", "3.7"}, false}),
    [](const auto& param) { return param.param.name; });

}  // namespace
}  // namespace trainyard::app
