// `jobs update`'s label flags and the map they produce, following gcloud's labels_util.Diff.
#include "cli/commands/labels_update.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::cli {
namespace {

struct UpdateCase {
  std::string name;
  std::vector<std::string> update;  // --update-labels values
  std::vector<std::string> remove;  // --remove-labels values
  bool clear = false;
  model::Labels existing;
  model::Labels expected;
  bool needs_update = true;
};

class ApplyLabelsDiffTest : public ::testing::TestWithParam<UpdateCase> {};

TEST_P(ApplyLabelsDiffTest, ComputesTheNewMap) {
  const UpdateCase& c = GetParam();
  auto diff = ParseLabelsDiff(c.update, c.remove, c.clear);
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  const LabelsUpdate update = ApplyLabelsDiff(*diff, c.existing);
  EXPECT_EQ(update.labels, c.expected);
  EXPECT_EQ(update.needs_update, c.needs_update);
}

INSTANTIATE_TEST_SUITE_P(
    Diffs, ApplyLabelsDiffTest,
    ::testing::Values(
        UpdateCase{"AddsAndReplaces",
                   {"b=3,c=4"},
                   {},
                   false,
                   {{"a", "1"}, {"b", "2"}},
                   {{"a", "1"}, {"b", "3"}, {"c", "4"}}},
        UpdateCase{"RepeatedFlagsMerge", {"b=3", "c=4"}, {}, false, {}, {{"b", "3"}, {"c", "4"}}},
        UpdateCase{"Removes", {}, {"a,missing"}, false, {{"a", "1"}, {"b", "2"}}, {{"b", "2"}}},
        UpdateCase{"RemovesAfterUpdating", {"a=9,c=3"}, {"a"}, false, {{"a", "1"}}, {{"c", "3"}}},
        UpdateCase{"ClearsBeforeUpdating", {"c=3"}, {}, true, {{"a", "1"}}, {{"c", "3"}}},
        UpdateCase{"Clears", {}, {}, true, {{"a", "1"}}, {}},
        UpdateCase{"SameValueIsNoUpdate", {"a=1"}, {}, false, {{"a", "1"}}, {{"a", "1"}}, false},
        UpdateCase{
            "RemovingAbsentKeyIsNoUpdate", {}, {"x"}, false, {{"a", "1"}}, {{"a", "1"}}, false},
        UpdateCase{"ClearingNothingIsNoUpdate", {}, {}, true, {}, {}, false}),
    [](const auto& tc) { return tc.param.name; });

struct LabelsRefusalCase {
  std::string name;
  std::vector<std::string> update;
  std::vector<std::string> remove;
  bool clear = false;
  std::string message;
};

class ParseLabelsDiffTest : public ::testing::TestWithParam<LabelsRefusalCase> {};

TEST_P(ParseLabelsDiffTest, RefusesAsGcloudDoes) {
  const LabelsRefusalCase& c = GetParam();
  auto diff = ParseLabelsDiff(c.update, c.remove, c.clear);
  ASSERT_FALSE(diff.ok());
  EXPECT_EQ(diff.status().message(), c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Gcloud528, ParseLabelsDiffTest,
    ::testing::Values(
        LabelsRefusalCase{
            "ClearWithRemove",
            {},
            {"a"},
            true,
            "argument --clear-labels: At most one of --clear-labels | --remove-labels "
            "can be specified."},
        LabelsRefusalCase{
            "UpperCaseKey",
            {"X=y"},
            {},
            false,
            "argument --update-labels: Bad value [X]: Only hyphens (-), underscores (_), "
            "lowercase characters, and numbers are allowed. Keys must start with a "
            "lowercase character. International characters are allowed. Key length must "
            "not exceed 63 characters."},
        LabelsRefusalCase{"KeyGivenTwice",
                          {"a=b", "a=c"},
                          {},
                          false,
                          "argument --update-labels: \"a\" cannot be specified multiple times; "
                          "received: b, c"},
        LabelsRefusalCase{
            "NotADict",
            {"a"},
            {},
            false,
            "argument --update-labels: Bad syntax for dict arg: [a]. Expected KEY=VALUE "
            "pairs separated by commas."}),
    [](const auto& tc) { return tc.param.name; });

TEST(LabelsDiff, MayHaveUpdatesOnlyWithSomeFlag) {
  EXPECT_FALSE(ParseLabelsDiff({}, {}, false)->MayHaveUpdates());
  EXPECT_TRUE(ParseLabelsDiff({}, {}, true)->MayHaveUpdates());
  EXPECT_TRUE(ParseLabelsDiff({}, {"a"}, false)->MayHaveUpdates());
  EXPECT_TRUE(ParseLabelsDiff({"a=b"}, {}, false)->MayHaveUpdates());
}

}  // namespace
}  // namespace trainyard::cli
