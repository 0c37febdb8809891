// The storage v1 rules the handlers call between decoding a request and calling the store
// (api/storage/rules.h): which generation a request reaches, a download's byte range, a compose's
// sources, a bucket's preconditions, a new bucket's body, and the words the one JSON reader's
// storage dialect gives a bad body.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/storage/rules.h"

namespace trainyard::server {
namespace {

const store::ObjectInfo kLiveObject{.bucket = "b", .name = "o", .size = 10, .generation = 42};

struct GenerationCase {
  std::string name;
  std::string generation;
  Code code;
};

class CheckLiveGenerationTest : public ::testing::TestWithParam<GenerationCase> {};

TEST_P(CheckLiveGenerationTest, ReachesOnlyTheLiveGeneration) {
  const GenerationCase& tc = GetParam();
  const Status status = CheckLiveGeneration(kLiveObject, tc.generation);
  EXPECT_EQ(status.code(), tc.code) << status.ToString();
  if (tc.code == Code::kNotFound) {
    EXPECT_EQ(status.message(), "No such object: b/o#" + tc.generation);
  }
}

INSTANTIATE_TEST_SUITE_P(Generations, CheckLiveGenerationTest,
                         ::testing::Values(GenerationCase{"Any", "", Code::kOk},
                                           GenerationCase{"Live", "42", Code::kOk},
                                           GenerationCase{"Older", "41", Code::kNotFound},
                                           GenerationCase{"NotANumber", "x", Code::kNotFound},
                                           GenerationCase{"Padded", "042", Code::kNotFound}),
                         [](const auto& tc) { return tc.param.name; });

struct ByteRangeCase {
  std::string name;
  std::string header;
  std::optional<ByteRange> range;  // nullopt: the whole object
  bool out_of_range = false;
};

class RequestedRangeTest : public ::testing::TestWithParam<ByteRangeCase> {};

// Of a 10-byte object.
TEST_P(RequestedRangeTest, ReadsTheFormsHttpDefines) {
  const ByteRangeCase& tc = GetParam();
  const Result<std::optional<ByteRange>> range = RequestedRange(tc.header, 10);
  if (tc.out_of_range) {
    EXPECT_EQ(range.status().code(), Code::kOutOfRange);
    return;
  }
  ASSERT_TRUE(range.ok()) << range.status().ToString();
  EXPECT_EQ(*range, tc.range);
}

INSTANTIATE_TEST_SUITE_P(
    Headers, RequestedRangeTest,
    ::testing::Values(ByteRangeCase{"None", "", std::nullopt},
                      ByteRangeCase{"FirstToLast", "bytes=2-5", ByteRange{2, 5}},
                      ByteRangeCase{"LastClamped", "bytes=2-99", ByteRange{2, 9}},
                      ByteRangeCase{"OpenEnded", "bytes=3-", ByteRange{3, 9}},
                      ByteRangeCase{"Suffix", "bytes=-4", ByteRange{6, 9}},
                      ByteRangeCase{"SuffixLongerThanObject", "bytes=-40", ByteRange{0, 9}},
                      ByteRangeCase{"EmptySuffix", "bytes=-0", std::nullopt},
                      ByteRangeCase{"Backwards", "bytes=5-2", std::nullopt},
                      ByteRangeCase{"Several", "bytes=0-1,4-5", std::nullopt},
                      ByteRangeCase{"OtherUnit", "items=0-1", std::nullopt},
                      ByteRangeCase{"NoDash", "bytes=5", std::nullopt},
                      ByteRangeCase{"Malformed", "bytes=x-5", std::nullopt},
                      ByteRangeCase{"NegativeLast", "bytes=5--3", std::nullopt},
                      ByteRangeCase{"PastTheEnd", "bytes=10-", std::nullopt, true}),
    [](const auto& tc) { return tc.param.name; });

struct ComposeSourceCase {
  std::string name;
  ComposeSource source;
  Code code;
  bool condition_not_met = false;
};

class CheckComposeSourceTest : public ::testing::TestWithParam<ComposeSourceCase> {};

TEST_P(CheckComposeSourceTest, ReadsOnlyTheGenerationAskedFor) {
  const ComposeSourceCase& tc = GetParam();
  const Status status = CheckComposeSource(tc.source, kLiveObject);
  EXPECT_EQ(status.code(), tc.code) << status.ToString();
  EXPECT_EQ(store::IsConditionNotMet(status), tc.condition_not_met);
}

INSTANTIATE_TEST_SUITE_P(
    Sources, CheckComposeSourceTest,
    ::testing::Values(
        ComposeSourceCase{"Plain", {.name = "o"}, Code::kOk},
        ComposeSourceCase{"LiveGeneration", {.name = "o", .generation = 42}, Code::kOk},
        ComposeSourceCase{"OtherGeneration", {.name = "o", .generation = 7}, Code::kNotFound},
        ComposeSourceCase{"MatchHolds", {.name = "o", .if_generation_match = 42}, Code::kOk},
        ComposeSourceCase{
            "MatchFails", {.name = "o", .if_generation_match = 7}, Code::kFailedPrecondition, true},
        ComposeSourceCase{"GenerationBeforeMatch",
                          {.name = "o", .generation = 7, .if_generation_match = 7},
                          Code::kNotFound}),
    [](const auto& tc) { return tc.param.name; });

const store::BucketInfo kBucket{.name = "b",
                                .project = "p",
                                .metageneration = 3,
                                .labels = {{"team", "ml"}},
                                .settings = {{"website", R"({"mainPageSuffix":"i.html"})"}}};

struct BucketChangeCase {
  std::string name;
  Preconditions conditions;
  std::string body;
  BucketWrite mode;
  Code code;
  bool condition_not_met = false;
  BucketFields fields = {};
};

class PlanBucketChangeTest : public ::testing::TestWithParam<BucketChangeCase> {};

TEST_P(PlanBucketChangeTest, HonoursPreconditionsBeforeTheBody) {
  const BucketChangeCase& tc = GetParam();
  const Result<BucketFields> planned = PlanBucketChange(kBucket, tc.conditions, tc.body, tc.mode);
  EXPECT_EQ(planned.status().code(), tc.code) << planned.status().ToString();
  EXPECT_EQ(store::IsConditionNotMet(planned.status()), tc.condition_not_met);
  EXPECT_EQ(CheckBucketConditions(tc.conditions, kBucket.metageneration).ok(),
            !tc.condition_not_met);
  if (planned.ok()) {
    EXPECT_EQ(*planned, tc.fields);
  }
}

constexpr auto kPatchMode = BucketWrite::kPatch;
constexpr auto kReplaceMode = BucketWrite::kReplace;

INSTANTIATE_TEST_SUITE_P(
    Changes, PlanBucketChangeTest,
    ::testing::Values(
        BucketChangeCase{
            "NoConditionsPatch",
            {},
            R"({"labels":{"a":"1"}})",
            kPatchMode,
            Code::kOk,
            false,
            BucketFields{.labels = {{"a", "1"}, {"team", "ml"}}, .settings = kBucket.settings}},
        BucketChangeCase{
            "MatchHoldsReplace", {.if_metageneration_match = 3}, "{}", kReplaceMode, Code::kOk},
        BucketChangeCase{"MatchFails",
                         {.if_metageneration_match = 2},
                         "{}",
                         kPatchMode,
                         Code::kFailedPrecondition,
                         true},
        BucketChangeCase{"NotMatchFails",
                         {.if_metageneration_not_match = 3},
                         "{}",
                         kPatchMode,
                         Code::kFailedPrecondition,
                         true},
        BucketChangeCase{
            "NotMatchHolds", {.if_metageneration_not_match = 2}, "{}", kReplaceMode, Code::kOk},
        BucketChangeCase{"ConditionsBeforeABadBody",
                         {.if_metageneration_match = 2},
                         R"({"frobnicate":1})",
                         kPatchMode,
                         Code::kFailedPrecondition,
                         true},
        BucketChangeCase{"BadBody",
                         {.if_metageneration_match = 3},
                         R"({"frobnicate":1})",
                         kPatchMode,
                         Code::kInvalidArgument}),
    [](const auto& tc) { return tc.param.name; });

struct InsertCase {
  std::string name;
  std::string body;
  std::string bad_field;  // "" when accepted
  std::string bucket = "";
  BucketFields fields = {};
};

class ParseBucketInsertTest : public ::testing::TestWithParam<InsertCase> {};

TEST_P(ParseBucketInsertTest, NeedsANameAndTakesTheFields) {
  const InsertCase& tc = GetParam();
  const Result<NewBucket> parsed = ParseBucketInsert(tc.body);
  if (!tc.bad_field.empty()) {
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    ASSERT_FALSE(parsed.status().violations().empty());
    EXPECT_EQ(parsed.status().violations()[0].field, tc.bad_field);
    return;
  }
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->name, tc.bucket);
  EXPECT_EQ(parsed->fields, tc.fields);
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, ParseBucketInsertTest,
    ::testing::Values(
        InsertCase{"NameOnly", R"({"name":"b1"})", "", "b1"},
        InsertCase{"WithLabels", R"({"name":"b1","labels":{"k":"v"},"location":"US"})", "", "b1",
                   BucketFields{.labels = {{"k", "v"}}}},
        InsertCase{"NoName", R"({"labels":{}})", "name"},
        InsertCase{"NullName", R"({"name":null})", "name"},
        InsertCase{"NameNotAString", R"({"name":7})", "name"},
        InsertCase{"BadField", R"({"name":"b1","versioning":{"enabled":true}})", "versioning"},
        InsertCase{"NotAnObject", R"(["b1"])", "body"}, InsertCase{"NotJson", "{", "body"}),
    [](const auto& tc) { return tc.param.name; });

// The storage dialect's words, as the handlers answer them (the GCS error's `message`).
struct WordingCase {
  std::string name;
  std::string body;
  bool bucket;  // ApplyBucketResource (a patch) or ParseObjectPatch
  std::vector<FieldViolation> violations;
};

class StorageWordingTest : public ::testing::TestWithParam<WordingCase> {};

TEST_P(StorageWordingTest, NamesTheMemberInTheStorageApisWords) {
  const WordingCase& tc = GetParam();
  const Status status = tc.bucket ? ApplyBucketResource({}, tc.body, kPatchMode).status()
                                  : ParseObjectPatch(tc.body).status();
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  const std::vector<FieldViolation> got(status.violations().begin(), status.violations().end());
  EXPECT_EQ(got, tc.violations) << status.ToString();
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, StorageWordingTest,
    ::testing::Values(
        WordingCase{"ObjectUnknown",
                    R"({"acl":[]})",
                    false,
                    {{"acl", "The object field acl is not known to this server."}}},
        WordingCase{"ObjectTextNotAString",
                    R"({"contentType":1,"cacheControl":true})",
                    false,
                    {{"contentType", "Invalid value for contentType: a string or null."},
                     {"cacheControl", "Invalid value for cacheControl: a string or null."}}},
        WordingCase{"ObjectMetadata",
                    R"({"metadata":{"a":1}})",
                    false,
                    {{"metadata.a", "Invalid value for metadata.a: a string or null."}}},
        WordingCase{"ObjectMetadataNotAnObject",
                    R"({"metadata":"x"})",
                    false,
                    {{"metadata", "Invalid value for metadata: an object or null."}}},
        WordingCase{"BucketUnknown",
                    R"({"frobnicate":1})",
                    true,
                    {{"frobnicate", "The bucket field frobnicate is not known to this server."}}},
        WordingCase{"BucketFixed",
                    R"({"location":"EU"})",
                    true,
                    {{"location",
                      R"(The bucket's location is "US" on this server; it cannot be changed.)"}}},
        WordingCase{"BucketOffOnly",
                    R"({"defaultEventBasedHold":true})",
                    true,
                    {{"defaultEventBasedHold",
                      "The bucket field defaultEventBasedHold cannot be set on this server: this "
                      "server keeps no object holds. Accepted: [null, false]."}}},
        WordingCase{"BucketLabel",
                    R"({"labels":{"k":1}})",
                    true,
                    {{"labels.k", "Invalid value for labels.k: a string or null."}}},
        WordingCase{"BucketLabelsNotAnObject",
                    R"({"labels":"x"})",
                    true,
                    {{"labels", "Invalid value for labels: an object or null."}}},
        WordingCase{"BucketKeptShape",
                    R"({"cors":{}})",
                    true,
                    {{"cors", "Invalid value for cors: an array of CORS rules (JSON objects)."}}}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::server
