// Runs every tests/validate/fixtures/*.yaml: a gcloud --config file whose header lines
// `# expect: <field path>` (one per violation, order-insensitive) or `# expect: valid` say what
// `Validate` must report. The job id is the file's stem unless the file sets `jobId`.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "model/config_file.h"
#include "support/build_paths.h"
#include "validate/rule_case.h"
#include "validate/validate.h"

namespace trainyard::validate::testing {
namespace {

namespace fs = std::filesystem;

const fs::path& FixtureDir() {
  static const fs::path kDir =
      fs::path(::trainyard::testing::SourceDir()) / "tests" / "validate" / "fixtures";
  return kDir;
}

std::vector<std::string> FixtureNames() {
  std::vector<std::string> names;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(FixtureDir(), error)) {
    if (entry.path().extension() == ".yaml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::ranges::sort(names);
  return names;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Trim(std::string text) {
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  text.erase(text.begin(), std::ranges::find_if_not(text, space));
  while (!text.empty() && space(static_cast<unsigned char>(text.back()))) {
    text.pop_back();
  }
  return text;
}

// The `# expect:` lines of `text`: "valid" or field paths.
std::vector<std::string> Expectations(const std::string& text) {
  static constexpr std::string_view kPrefix = "# expect:";
  std::vector<std::string> expected;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(kPrefix)) {
      expected.push_back(Trim(line.substr(kPrefix.size())));
    }
  }
  return expected;
}

class ConfigFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(ConfigFixture, ProducesExactlyTheExpectedViolations) {
  const fs::path path = FixtureDir() / (GetParam() + ".yaml");
  const std::string text = ReadFile(path);
  std::vector<std::string> expected = Expectations(text);
  ASSERT_FALSE(expected.empty()) << path << " has no '# expect:' line";
  if (expected == std::vector<std::string>{"valid"}) {
    expected.clear();
  } else {
    ASSERT_EQ(std::ranges::count(expected, "valid"), 0)
        << path << ": 'valid' cannot be combined with field paths";
  }

  Result<model::Job> job = model::ParseConfigText(text, path.string());
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  if (job->job_id.empty()) {
    job->job_id = GetParam();
  }

  const std::vector<FieldViolation> violations = Validate(*job, catalog::Catalog::Builtin());
  std::vector<std::string> actual = Fields(violations);
  std::ranges::sort(actual);
  std::ranges::sort(expected);
  EXPECT_EQ(actual, expected) << "violations:" << Describe(violations);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ConfigFixture, ::testing::ValuesIn(FixtureNames()),
                         [](const auto& tc) { return tc.param; });

TEST(ConfigFixtures, AreFound) {
  EXPECT_GE(FixtureNames().size(), 12u) << FixtureDir();
}

}  // namespace
}  // namespace trainyard::validate::testing
