// kubectl's label and field selectors, one row per rule.
#include "api/kube/selectors.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

namespace trainyard::server {
namespace {

const std::map<std::string, std::string> kLabels = {
    {"training.kubeflow.org/job-name", "mnist"}, {"team", "a"}, {"tier", "gpu"}};

struct Row {
  const char* selector;
  bool matches;
};

class LabelSelectorTest : public ::testing::TestWithParam<Row> {};

TEST_P(LabelSelectorTest, Matches) {
  Result<Selector> selector = Selector::ParseLabels(GetParam().selector);
  ASSERT_TRUE(selector.ok()) << selector.status().ToString();
  EXPECT_EQ(selector->Matches(kLabels), GetParam().matches) << GetParam().selector;
}

INSTANTIATE_TEST_SUITE_P(
    Rules, LabelSelectorTest,
    ::testing::Values(Row{"", true}, Row{"team=a", true}, Row{"team==a", true},
                      Row{"team=b", false}, Row{"team!=b", true}, Row{"team!=a", false},
                      Row{"missing!=x", true}, Row{"team", true}, Row{"missing", false},
                      Row{"!missing", true}, Row{"!team", false}, Row{"tier in (cpu,gpu)", true},
                      Row{"tier in (cpu)", false}, Row{"tier notin (cpu, tpu)", true},
                      Row{"training.kubeflow.org/job-name=mnist,team=a", true},
                      Row{"training.kubeflow.org/job-name=mnist,team=b", false}));

TEST(SelectorTest, MalformedSelectorsAreErrors) {
  for (const char* text : {"=a", "tier in (a", "tier of (a)", "a b=c"}) {
    EXPECT_FALSE(Selector::ParseLabels(text).ok()) << text;
  }
  for (const char* text : {"metadata.name", "in (x)"}) {
    EXPECT_FALSE(Selector::ParseFields(text).ok()) << text;
  }
}

TEST(SelectorTest, FieldsAndTheirEquality) {
  Result<Selector> fields =
      Selector::ParseFields("involvedObject.name=mnist,involvedObject.kind!=Pod");
  ASSERT_TRUE(fields.ok());
  EXPECT_EQ(fields->Equality("involvedObject.name"), "mnist");
  EXPECT_EQ(fields->Equality("involvedObject.kind"), std::nullopt);
  const auto values = [](std::string_view key) -> std::optional<std::string> {
    if (key == "involvedObject.name") {
      return "mnist";
    }
    if (key == "involvedObject.kind") {
      return "TFJob";
    }
    return std::nullopt;
  };
  EXPECT_TRUE(fields->Matches(values));
}

}  // namespace
}  // namespace trainyard::server
