#include "validate/violations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "validate/formats.h"

namespace trainyard::validate {
namespace {

using ::testing::ElementsAre;

TEST(FieldPath, BuildsCamelCaseRequestPaths) {
  const FieldPath input = FieldPath().Child("trainingInput");
  EXPECT_EQ(input.str(), "trainingInput");
  EXPECT_EQ(input.Child("workerConfig").Child("acceleratorConfig").Child("count").str(),
            "trainingInput.workerConfig.acceleratorConfig.count");
  EXPECT_EQ(input.Child("hyperparameters").Child("params").Index(1).Child("maxValue").str(),
            "trainingInput.hyperparameters.params[1].maxValue");
  EXPECT_EQ(input.Child("workerCount").leaf(), "workerCount");
  EXPECT_EQ(FieldPath().Child("labels").leaf(), "labels");
}

TEST(Violations, SortsIntoRequestFieldOrderKeepingRuleOrderForTies) {
  Violations out;
  const FieldPath params =
      FieldPath().Child("trainingInput").Child("hyperparameters").Child("params");
  out.Add(params.Index(10).Child("type"), "a");
  out.Add(FieldPath().Child("trainingInput").Child("region"), "b");
  out.Add(params.Index(2).Child("maxValue"), "c");
  out.Add(params.Index(2).Child("minValue"), "d");
  out.Add(FieldPath()
              .Child("trainingInput")
              .Child("masterConfig")
              .Child("acceleratorConfig")
              .Child("type"),
          "e");
  out.Add(FieldPath()
              .Child("trainingInput")
              .Child("masterConfig")
              .Child("acceleratorConfig")
              .Child("count"),
          "f");
  out.Add(FieldPath().Child("trainingInput").Child("region"), "g");
  out.Add(FieldPath().Child("labels"), "h");
  out.Add(FieldPath().Child("jobId"), "i");
  std::vector<std::string> order;
  for (const FieldViolation& v : std::move(out).TakeSorted()) {
    order.push_back(v.description);
  }
  EXPECT_THAT(order, ElementsAre("i", "h", "f", "e", "d", "c", "a", "b", "g"));
}

struct FormatCase {
  std::string name;
  bool (*check)(std::string_view);
  std::string text;
  bool accepted;

  friend void PrintTo(const FormatCase& c, std::ostream* os) { *os << c.name; }
};

class FormatTest : public ::testing::TestWithParam<FormatCase> {};

TEST_P(FormatTest, AcceptsExactlyTheDocumentedSyntax) {
  EXPECT_EQ(GetParam().check(GetParam().text), GetParam().accepted) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Syntax, FormatTest,
    ::testing::Values(FormatCase{"GcsObject", IsGcsObjectUri, "gs://my-bucket/a/b.tar.gz", true},
                      FormatCase{"GcsDottedBucket", IsGcsObjectUri, "gs://my.bucket.example/a",
                                 true},
                      FormatCase{"GcsShortBucket", IsGcsObjectUri, "gs://ab/a", false},
                      FormatCase{"GcsBucketEndsWithDash", IsGcsObjectUri, "gs://abc-/a", false},
                      FormatCase{"GcsNoObject", IsGcsObjectUri, "gs://my-bucket", false},
                      FormatCase{"GcsDirBucket", IsGcsDirectoryUri, "gs://my-bucket", true},
                      FormatCase{"GcsDirPath", IsGcsDirectoryUri, "gs://my-bucket/out/", true},
                      FormatCase{"GcsDirNoBucket", IsGcsDirectoryUri, "gs:///out", false},
                      FormatCase{"LocalPath", IsAbsoluteLocalPath, "/data/pkg.tar.gz", true},
                      FormatCase{"LocalRoot", IsAbsoluteLocalPath, "/", false},
                      FormatCase{"ModuleUnderscore", IsPythonModule, "_pkg.mod_1", true},
                      FormatCase{"ModuleTrailingDot", IsPythonModule, "pkg.", false},
                      FormatCase{"LabelKeyUnicode", IsLabelKey,
                                 "\xc3\xa9"
                                 "quipe",
                                 false}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::validate
