// Runtime versions: Python versions (docs/reference/ai-platform-training.md §2.2), TPU support (TPU
// seed) and whether TF_CONFIG names the primary `chief` (2.1 and later).
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"

namespace trainyard::catalog {
namespace {

struct RuntimeCase {
  std::string name;  // test name
  std::string version;
  std::vector<std::string> python_versions;
  bool tpu;
  bool chief_in_tf_config;

  friend void PrintTo(const RuntimeCase& c, std::ostream* os) { *os << c.name; }
};

class RuntimeVersionTest : public ::testing::TestWithParam<RuntimeCase> {};

TEST_P(RuntimeVersionTest, HasTheDocumentedSupport) {
  const RuntimeCase& c = GetParam();
  const RuntimeVersion* runtime = Catalog::Builtin().FindRuntimeVersion(c.version);
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->python_versions, c.python_versions);
  EXPECT_EQ(runtime->tpu, c.tpu);
  EXPECT_EQ(runtime->chief_in_tf_config, c.chief_in_tf_config);
}

INSTANTIATE_TEST_SUITE_P(
    Reference, RuntimeVersionTest,
    ::testing::Values(RuntimeCase{"V1_13", "1.13", {"2.7", "3.5"}, true, false},
                      RuntimeCase{"V1_14", "1.14", {"2.7", "3.5"}, true, false},
                      RuntimeCase{"V1_15", "1.15", {"2.7", "3.7"}, true, false},
                      RuntimeCase{"V2_1", "2.1", {"3.7"}, true, true},
                      RuntimeCase{"V2_2", "2.2", {"3.7"}, true, true},
                      RuntimeCase{"V2_3", "2.3", {"3.7"}, false, true},
                      RuntimeCase{"V2_8", "2.8", {"3.7"}, false, true},
                      RuntimeCase{"V2_10", "2.10", {"3.7"}, false, true},
                      RuntimeCase{"V2_11", "2.11", {"3.7"}, false, true}),
    [](const auto& tc) { return tc.param.name; });

TEST(RuntimeVersions, AreTheDocumentedList) {
  std::vector<std::string> versions;
  for (const RuntimeVersion& runtime : Catalog::Builtin().runtime_versions()) {
    versions.push_back(runtime.version);
  }
  EXPECT_EQ(versions,
            (std::vector<std::string>{"1.13", "1.14", "1.15", "2.1", "2.2", "2.3", "2.4", "2.5",
                                      "2.6", "2.7", "2.8", "2.9", "2.10", "2.11"}));
}

TEST(RuntimeVersions, TpuRuntimesAreExactlyTheSeeds) {
  std::vector<std::string> tpu;
  for (const RuntimeVersion& runtime : Catalog::Builtin().runtime_versions()) {
    if (runtime.tpu) {
      tpu.push_back(runtime.version);
    }
  }
  EXPECT_EQ(tpu, (std::vector<std::string>{"1.13", "1.14", "1.15", "2.1", "2.2"}));
}

}  // namespace
}  // namespace trainyard::catalog
