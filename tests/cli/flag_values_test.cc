#include "cli/commands/flag_values.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/catalog.h"

namespace trainyard::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

// --- accelerator specs: the message is what follows "argument --x-accelerator: " -----------

struct AcceleratorCase {
  std::string name;
  std::string spec;
  std::string type;  // expected enum name; "" when an error is expected
  std::int64_t count = 0;
  std::string error;
};

class AcceleratorSpecTest : public ::testing::TestWithParam<AcceleratorCase> {};

TEST_P(AcceleratorSpecTest, ParsesLikeGcloud) {
  const AcceleratorCase& c = GetParam();
  auto parsed = ParseAcceleratorSpec(c.spec, catalog::Catalog::Builtin());
  if (c.error.empty()) {
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->type, c.type);
    EXPECT_EQ(parsed->count, c.count);
  } else {
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(), c.error);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Specs, AcceleratorSpecTest,
    ::testing::Values(
        AcceleratorCase{"CountFirst", "count=4,type=nvidia-tesla-t4", "NVIDIA_TESLA_T4", 4, ""},
        AcceleratorCase{"TypeFirst", "type=nvidia-tesla-v100,count=1", "NVIDIA_TESLA_V100", 1, ""},
        AcceleratorCase{"EnumSpelling", "type=NVIDIA_TESLA_P100,count=2", "NVIDIA_TESLA_P100", 2,
                        ""},
        AcceleratorCase{"Tpu", "type=tpu-v3,count=8", "TPU_V3", 8, ""},
        AcceleratorCase{"ModernGpu", "type=nvidia-h100-80gb,count=8", "NVIDIA_H100_80GB", 8, ""},
        AcceleratorCase{"SpacesAroundValues", "type= nvidia-tesla-t4 , count= 2 ",
                        "NVIDIA_TESLA_T4", 2, ""},
        AcceleratorCase{"CountNotANumber", "count=x,type=nvidia-tesla-t4", "", 0,
                        "Invalid value [x] for key [count]: must be an integer."},
        AcceleratorCase{"CountZero", "count=0,type=nvidia-tesla-t4", "", 0,
                        "The count of the accelerator must be greater than 0."},
        AcceleratorCase{"CountNegative", "count=-2,type=nvidia-tesla-t4", "", 0,
                        "The count of the accelerator must be greater than 0."},
        AcceleratorCase{"MissingCount", "type=nvidia-tesla-t4", "", 0,
                        "Key [count] required in dict arg but not provided"},
        AcceleratorCase{"MissingType", "count=1", "", 0,
                        "Key [type] required in dict arg but not provided"},
        AcceleratorCase{"UnknownKey", "type=tpu-v2,count=8,zone=a", "", 0,
                        "valid keys are [count, type]; received: zone"},
        AcceleratorCase{"NoEquals", "count", "", 0,
                        "Bad syntax for dict arg: [count]. Expected KEY=VALUE pairs separated by "
                        "commas."},
        AcceleratorCase{"EmptyKey", "=4", "", 0, "Invalid flag value [=4]"}),
    [](const auto& tc) { return tc.param.name; });

TEST(AcceleratorSpec, UnknownTypeListsTheCatalogsFlagSpellingsSorted) {
  auto parsed = ParseAcceleratorSpec("type=nvidia-tesla-zz,count=1", catalog::Catalog::Builtin());
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(),
              ::testing::StartsWith("Invalid accelerator: nvidia-tesla-zz. Valid choices are: "));
  EXPECT_THAT(parsed.status().message(),
              ::testing::HasSubstr("nvidia-tesla-k80, nvidia-tesla-p100"));
  EXPECT_THAT(parsed.status().message(), ::testing::HasSubstr("tpu-v2, tpu-v3]."));
}

// --- labels ----------------------------------------------------------------------------------

struct LabelCase {
  std::string name;
  std::string text;
  model::Labels labels;
  std::string error;
};

class LabelsTest : public ::testing::TestWithParam<LabelCase> {};

TEST_P(LabelsTest, FollowsGcloudsLabelRules) {
  const LabelCase& c = GetParam();
  auto parsed = ParseLabels(c.text);
  if (c.error.empty()) {
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, c.labels);
  } else {
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().message(), c.error);
  }
}

constexpr const char* kKeyRules =
    "Only hyphens (-), underscores (_), lowercase characters, and numbers are allowed. Keys must "
    "start with a lowercase character. International characters are allowed. Key length must not "
    "exceed 63 characters.";
constexpr const char* kValueRules =
    "Only hyphens (-), underscores (_), lowercase characters, and numbers are allowed. "
    "International characters are allowed.";

INSTANTIATE_TEST_SUITE_P(
    Labels, LabelsTest,
    ::testing::Values(
        LabelCase{"Two", "a=b,c-d=e_f", {{"a", "b"}, {"c-d", "e_f"}}, ""},
        LabelCase{"EmptyValue", "a=", {{"a", ""}}, ""},
        LabelCase{"LaterKeyWins", "a=1,a=2", {{"a", "2"}}, ""},
        LabelCase{"International", "clé=été", {{"clé", "été"}}, ""}, LabelCase{"Empty", "", {}, ""},
        LabelCase{"UpperKey", "A=b", {}, std::string("Bad value [A]: ") + kKeyRules},
        LabelCase{"DigitFirst", "1a=b", {}, std::string("Bad value [1a]: ") + kKeyRules},
        LabelCase{"UpperValue", "a=B", {}, std::string("Bad value [B]: ") + kValueRules},
        LabelCase{"ValueWithEquals", "a=b=c", {}, std::string("Bad value [b=c]: ") + kValueRules},
        LabelCase{"LongKey",
                  std::string(64, 'k') + "=v",
                  {},
                  "Bad value [" + std::string(64, 'k') + "]: " + kKeyRules},
        LabelCase{"NoValue",
                  "a",
                  {},
                  "Bad syntax for dict arg: [a]. Expected KEY=VALUE pairs separated by commas."}),
    [](const auto& tc) { return tc.param.name; });

// --- scalar flags ----------------------------------------------------------------------------

TEST(ScaleTierFlag, MapsEveryGcloudChoice) {
  EXPECT_EQ(*ParseScaleTier("basic"), model::ScaleTier::kBasic);
  EXPECT_EQ(*ParseScaleTier("standard-1"), model::ScaleTier::kStandard1);
  EXPECT_EQ(*ParseScaleTier("premium-1"), model::ScaleTier::kPremium1);
  EXPECT_EQ(*ParseScaleTier("basic-gpu"), model::ScaleTier::kBasicGpu);
  EXPECT_EQ(*ParseScaleTier("basic-tpu"), model::ScaleTier::kBasicTpu);
  EXPECT_EQ(*ParseScaleTier("custom"), model::ScaleTier::kCustom);
}

// gcloud 528 takes `--scale-tier BASIC`, `BASIC_GPU`, `Basic-Gpu` and `premium_1` (checked with
// it), and words the refusal of anything else on two lines.
TEST(ScaleTierFlag, TakesGcloudsOtherSpellings) {
  EXPECT_EQ(*ParseScaleTier("CUSTOM"), model::ScaleTier::kCustom);
  EXPECT_EQ(*ParseScaleTier("BASIC_GPU"), model::ScaleTier::kBasicGpu);
  EXPECT_EQ(*ParseScaleTier("Basic-Gpu"), model::ScaleTier::kBasicGpu);
  EXPECT_EQ(*ParseScaleTier("premium_1"), model::ScaleTier::kPremium1);
}

TEST(ScaleTierFlag, RefusesOtherWords) {
  auto parsed = ParseScaleTier("basic gpu");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(
      parsed.status().message(),
      "Invalid choice: 'basic gpu'.\n\nValid choices are [basic, basic-gpu, basic-tpu, custom, "
      "premium-1, standard-1].");
}

TEST(ReplicaCountFlag, NeedsAPositiveInteger) {
  EXPECT_EQ(*ParsePositiveInt("9"), 9);
  EXPECT_EQ(ParsePositiveInt("0").status().message(),
            "Value must be greater than or equal to 1; received: 0");
  EXPECT_EQ(ParsePositiveInt("two").status().message(), "Value must be an integer; received: two");
}

TEST(BooleanFlag, AcceptsGcloudsWordsInAnyCase) {
  EXPECT_TRUE(*ParseBoolean("true"));
  EXPECT_TRUE(*ParseBoolean("YES"));
  EXPECT_FALSE(*ParseBoolean("False"));
  EXPECT_FALSE(*ParseBoolean("no"));
  EXPECT_EQ(ParseBoolean("1").status().message(),
            "Invalid flag value [1], expected one of [true, yes, false, no]");
}

TEST(ServiceAccountFlag, WantsAnEmailOrANumericId) {
  EXPECT_TRUE(CheckServiceAccount("sa@p.iam.gserviceaccount.com").ok());
  EXPECT_TRUE(CheckServiceAccount("1234567890").ok());
  EXPECT_THAT(CheckServiceAccount("sa").message(),
              ::testing::StartsWith("Bad value [sa]: Not a valid service account identifier."));
}

TEST(ListFlag, SplitsOnCommas) {
  EXPECT_THAT(SplitList("a,b,,c"), ElementsAre("a", "b", "", "c"));
  EXPECT_TRUE(SplitList("").empty());
}

TEST(DictFlag, KeepsOrderAndLetsALaterKeyWin) {
  auto dict = ParseDict("b=1,a=2,b=3");
  ASSERT_TRUE(dict.ok());
  EXPECT_THAT(*dict, ElementsAre(Pair("a", "2"), Pair("b", "3")));
}

// --- Cloud Storage names ---------------------------------------------------------------------

struct BucketCase {
  std::string name;
  std::string bucket;
  std::string reason;  // "" when valid
};

class BucketNameTest : public ::testing::TestWithParam<BucketCase> {};

TEST_P(BucketNameTest, FollowsGcloudsNamingChecks) {
  const BucketCase& c = GetParam();
  Status status = CheckBucketName(c.bucket);
  if (c.reason.empty()) {
    EXPECT_TRUE(status.ok()) << status.ToString();
  } else {
    EXPECT_THAT(status.message(), ::testing::HasSubstr(c.reason));
    EXPECT_THAT(status.message(),
                ::testing::StartsWith("Invalid bucket name [" + c.bucket + "]: "));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Buckets, BucketNameTest,
    ::testing::Values(BucketCase{"Plain", "bkt1", ""}, BucketCase{"Dotted", "my.bucket-1_x", ""},
                      BucketCase{"TooShort", "b", "must contain 3 to 63 characters"},
                      BucketCase{"LongComponent", std::string(64, 'a'),
                                 "must contain 3 to 63 characters"},
                      BucketCase{"Upper", "Bucket", "must contain only lowercase letters"},
                      BucketCase{"Slash", "bkt1/sub", "must contain only lowercase letters"},
                      BucketCase{"DashEnd", "bkt-", "must start and end with a number or letter"},
                      BucketCase{"IpAddress", "192.168.5.4", "dotted-decimal notation"}),
    [](const auto& tc) { return tc.param.name; });

TEST(StagingBucketFlag, NeedsTheGsPrefixAndStripsSlashes) {
  EXPECT_EQ(*ParseStagingBucket("gs://bkt1/"), "bkt1");
  EXPECT_EQ(ParseStagingBucket("bkt1").status().message(),
            "Must be a valid Google Cloud Storage bucket of the form [gs://somebucket]");
  EXPECT_FALSE(ParseStagingBucket("gs://b").ok());
}

TEST(ObjectUrl, AllowsABareBucketOnlyWhereAsked) {
  EXPECT_EQ(*ParseObjectUrl("gs://bkt1/out/", true), (ObjectRef{"bkt1", "out/"}));
  EXPECT_EQ(ParseObjectUrl("gs://bkt1", true)->Url(), "gs://bkt1/");
  EXPECT_EQ(ParseObjectUrl("gs://bkt1/", false).status().message(),
            "Invalid object name []: Empty object name is not allowed");
  EXPECT_EQ(ParseObjectUrl("/local/dir", true).status().message(),
            "Must be of form gs://bucket/object");
  EXPECT_FALSE(ParseObjectUrl("gs://b/x", true).ok());  // the bucket is checked with an object
}

TEST(StorageUrl, TreatsAnInvalidBucketAsALocalPath) {
  EXPECT_TRUE(IsStorageUrl("gs://bkt1/pkg.tar.gz"));
  EXPECT_FALSE(IsStorageUrl("gs://b/pkg.tar.gz"));
  EXPECT_FALSE(IsStorageUrl("dist/pkg.tar.gz"));
  EXPECT_FALSE(IsStorageUrl("gs://bkt1/"));
}

}  // namespace
}  // namespace trainyard::cli
