#include "api/storage/rules.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::server {
namespace {

// Checks a parse against its case: refused as INVALID_ARGUMENT at `bad_field`, or accepted when
// that is "". True when the parse was accepted, so the case's values can be checked.
template <typename T>
bool AcceptedAsExpected(const Result<T>& parsed, const std::string& bad_field) {
  if (!bad_field.empty()) {
    EXPECT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    EXPECT_TRUE(!parsed.ok() && parsed.status().violations().size() >= 1 &&
                parsed.status().violations()[0].field == bad_field)
        << parsed.status().ToString();
    return false;
  }
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok();
}

struct RangeCase {
  std::string name;
  std::string header;
  std::int64_t body_size;
  bool ok;
  std::optional<std::int64_t> first;
  std::optional<std::int64_t> total;
};

class ParseContentRangeTest : public ::testing::TestWithParam<RangeCase> {};

TEST_P(ParseContentRangeTest, ReadsEveryFormGcsClientsSend) {
  const RangeCase& tc = GetParam();
  const Result<ChunkRange> range = ParseContentRange(tc.header, tc.body_size);
  ASSERT_EQ(range.ok(), tc.ok) << range.status().ToString();
  if (!tc.ok) {
    EXPECT_EQ(range.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(range.status().violations()[0].field, "Content-Range");
    return;
  }
  EXPECT_EQ(range->first, tc.first);
  EXPECT_EQ(range->length, tc.body_size);
  EXPECT_EQ(range->total, tc.total);
}

constexpr std::optional<std::int64_t> kNone;

INSTANTIATE_TEST_SUITE_P(
    Headers, ParseContentRangeTest,
    ::testing::Values(RangeCase{"Absent", "", 7, true, 0, 7},
                      RangeCase{"ChunkOfKnownSize", "bytes 0-9/42", 10, true, 0, 42},
                      RangeCase{"ChunkOfUnknownSize", "bytes 10-19/*", 10, true, 10, kNone},
                      RangeCase{"WholeStreamKnownSize", "bytes 0-*/42", 42, true, 0, 42},
                      RangeCase{"WholeStreamShortOfItsSize", "bytes 0-*/42", 40, true, 0, 42},
                      RangeCase{"WholeStreamUnknownSize", "bytes 0-*/*", 42, true, 0, 42},
                      RangeCase{"RestOfStreamUnknownSize", "bytes 20-*/*", 22, true, 20, 42},
                      RangeCase{"EmptyStreamUnknownSize", "bytes 0-*/*", 0, true, 0, 0},
                      RangeCase{"Finalise", "bytes */42", 0, true, kNone, 42},
                      RangeCase{"StatusQuery", "bytes */*", 0, true, kNone, kNone},
                      // The Node.js client's empty last chunk with a chunkSize.
                      RangeCase{"EmptyObjectInChunks", "bytes 0--1/0", 0, true, kNone, 0},
                      RangeCase{"EmptyLastChunk", "bytes 8-7/8", 0, true, kNone, 8},
                      RangeCase{"EmptyRangeWithBody", "bytes 8-7/8", 1, false, kNone, kNone},
                      RangeCase{"NegativeEnd", "bytes 5--1/8", 0, false, kNone, kNone},
                      RangeCase{"StatusQueryWithBody", "bytes */*", 3, false, kNone, kNone},
                      RangeCase{"LengthMismatch", "bytes 0-9/42", 9, false, kNone, kNone},
                      RangeCase{"Backwards", "bytes 9-0/42", 10, false, kNone, kNone},
                      RangeCase{"NoUnit", "0-9/42", 10, false, kNone, kNone},
                      RangeCase{"NoTotal", "bytes 0-9", 10, false, kNone, kNone},
                      RangeCase{"NoDash", "bytes 9/42", 1, false, kNone, kNone},
                      RangeCase{"StarFirst", "bytes *-9/42", 10, false, kNone, kNone},
                      RangeCase{"NegativeTotal", "bytes 0-9/-1", 10, false, kNone, kNone},
                      RangeCase{"JunkTotal", "bytes 0-*/4x", 10, false, kNone, kNone}),
    [](const auto& tc) { return tc.param.name; });

struct PreconditionCase {
  std::string name;
  Preconditions conditions;
  std::optional<ObjectVersion> current;
  bool is_read;
  PreconditionOutcome outcome;
};

class EvaluatePreconditionsTest : public ::testing::TestWithParam<PreconditionCase> {};

TEST_P(EvaluatePreconditionsTest, AnswersAsGcs) {
  const PreconditionCase& tc = GetParam();
  EXPECT_EQ(EvaluatePreconditions(tc.conditions, tc.current, tc.is_read), tc.outcome);
}

constexpr ObjectVersion kLive{.generation = 7, .metageneration = 1};
constexpr std::optional<ObjectVersion> kAbsent;
using enum PreconditionOutcome;

INSTANTIATE_TEST_SUITE_P(
    Conditions, EvaluatePreconditionsTest,
    ::testing::Values(
        PreconditionCase{"NoneHold", {}, kLive, false, kHolds},
        PreconditionCase{"NoneOnAbsent", {}, kAbsent, false, kHolds},
        PreconditionCase{"GenerationMatches", {.if_generation_match = 7}, kLive, false, kHolds},
        PreconditionCase{"GenerationDiffers", {.if_generation_match = 6}, kLive, false, kFailed},
        PreconditionCase{
            "GenerationDiffersOnRead", {.if_generation_match = 6}, kLive, true, kFailed},
        PreconditionCase{"CreateOnlyAbsent", {.if_generation_match = 0}, kAbsent, false, kHolds},
        PreconditionCase{"CreateOnlyPresent", {.if_generation_match = 0}, kLive, false, kFailed},
        PreconditionCase{"GenerationOnAbsent", {.if_generation_match = 7}, kAbsent, false, kFailed},
        PreconditionCase{"NotMatchDiffers", {.if_generation_not_match = 6}, kLive, false, kHolds},
        PreconditionCase{
            "NotMatchEqualWrite", {.if_generation_not_match = 7}, kLive, false, kFailed},
        PreconditionCase{
            "NotMatchEqualRead", {.if_generation_not_match = 7}, kLive, true, kNotModified},
        PreconditionCase{
            "NotMatchZeroNeedsLive", {.if_generation_not_match = 0}, kAbsent, false, kFailed},
        PreconditionCase{"NotMatchZeroLive", {.if_generation_not_match = 0}, kLive, false, kHolds},
        PreconditionCase{
            "MetagenerationMatches", {.if_metageneration_match = 1}, kLive, false, kHolds},
        PreconditionCase{
            "MetagenerationDiffers", {.if_metageneration_match = 2}, kLive, false, kFailed},
        PreconditionCase{
            "MetagenerationOnAbsent", {.if_metageneration_match = 1}, kAbsent, false, kFailed},
        PreconditionCase{"MetagenerationNotMatchRead",
                         {.if_metageneration_not_match = 1},
                         kLive,
                         true,
                         kNotModified},
        PreconditionCase{"MetagenerationNotMatchAbsent",
                         {.if_metageneration_not_match = 1},
                         kAbsent,
                         false,
                         kHolds},
        PreconditionCase{"MatchFailsBeforeNotModified",
                         {.if_generation_match = 6, .if_generation_not_match = 7},
                         kLive,
                         true,
                         kFailed}),
    [](const auto& tc) { return tc.param.name; });

struct ParseCase {
  std::string name;
  std::vector<std::pair<std::string, std::string>> query;
  std::string infix;
  bool ok;
  Preconditions expected;
};

class ParsePreconditionsTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(ParsePreconditionsTest, ReadsTheNamedParameters) {
  const ParseCase& tc = GetParam();
  const Result<Preconditions> parsed = ParsePreconditions(tc.query, tc.infix);
  ASSERT_EQ(parsed.ok(), tc.ok) << parsed.status().ToString();
  if (!tc.ok) {
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(parsed.status().violations()[0].field, tc.query.back().first);
    return;
  }
  EXPECT_EQ(parsed->if_generation_match, tc.expected.if_generation_match);
  EXPECT_EQ(parsed->if_generation_not_match, tc.expected.if_generation_not_match);
  EXPECT_EQ(parsed->if_metageneration_match, tc.expected.if_metageneration_match);
  EXPECT_EQ(parsed->if_metageneration_not_match, tc.expected.if_metageneration_not_match);
}

INSTANTIATE_TEST_SUITE_P(
    Queries, ParsePreconditionsTest,
    ::testing::Values(ParseCase{"None", {{"alt", "json"}}, "", true, {}},
                      ParseCase{"All",
                                {{"ifGenerationMatch", "0"},
                                 {"ifGenerationNotMatch", "5"},
                                 {"ifMetagenerationMatch", "1"},
                                 {"ifMetagenerationNotMatch", "2"}},
                                "",
                                true,
                                {.if_generation_match = 0,
                                 .if_generation_not_match = 5,
                                 .if_metageneration_match = 1,
                                 .if_metageneration_not_match = 2}},
                      ParseCase{"LastValueCounts",
                                {{"ifGenerationMatch", "1"}, {"ifGenerationMatch", "2"}},
                                "",
                                true,
                                {.if_generation_match = 2}},
                      ParseCase{"SourceOnlyWithInfix",
                                {{"ifSourceGenerationMatch", "3"}, {"ifGenerationMatch", "4"}},
                                "Source",
                                true,
                                {.if_generation_match = 3}},
                      ParseCase{"NotANumber", {{"ifGenerationMatch", "abc"}}, "", false, {}},
                      ParseCase{"Negative", {{"ifMetagenerationMatch", "-1"}}, "", false, {}}),
    [](const auto& tc) { return tc.param.name; });

struct ParamCase {
  std::string method;
  std::string param;
  bool accepted;
};

class StorageQueryParamsTest : public ::testing::TestWithParam<ParamCase> {};

TEST_P(StorageQueryParamsTest, AcceptsWhatGcsDocumentsPerMethod) {
  const ParamCase& tc = GetParam();
  const std::vector<std::string> params = StorageQueryParams(tc.method);
  EXPECT_EQ(std::ranges::find(params, tc.param) != params.end(), tc.accepted)
      << tc.method << " " << tc.param;
}

INSTANTIATE_TEST_SUITE_P(
    Methods, StorageQueryParamsTest,
    ::testing::Values(ParamCase{"storage.objects.delete", "force", true},
                      ParamCase{"storage.objects.delete", "ifGenerationMatch", true},
                      ParamCase{"storage.objects.delete", "userProject", true},
                      ParamCase{"storage.objects.get", "ifMetagenerationNotMatch", true},
                      ParamCase{"storage.objects.get", "projection", true},
                      ParamCase{"storage.objects.get", "softDeleted", false},
                      ParamCase{"storage.objects.get", "ifSourceGenerationMatch", false},
                      ParamCase{"storage.objects.insert", "ifGenerationMatch", true},
                      ParamCase{"storage.objects.insert", "contentEncoding", true},
                      ParamCase{"storage.objects.insert", "kmsKeyName", true},
                      ParamCase{"storage.objects.rewrite", "ifSourceGenerationMatch", true},
                      ParamCase{"storage.objects.rewrite", "ifGenerationMatch", true},
                      ParamCase{"storage.objects.list", "matchGlob", true},
                      ParamCase{"storage.objects.list", "startOffset", true},
                      ParamCase{"storage.objects.list", "endOffset", true},
                      ParamCase{"storage.objects.list", "force", true},
                      ParamCase{"storage.objects.list", "softDeleted", false},
                      ParamCase{"storage.objects.delete", "prefix", true},
                      ParamCase{"storage.objects.delete", "matchGlob", true},
                      ParamCase{"storage.objects.delete", "softDeleted", false},
                      ParamCase{"storage.objects.upload", "upload_id", true},
                      ParamCase{"storage.buckets.delete", "force", false},
                      ParamCase{"storage.buckets.get", "userProject", true},
                      ParamCase{"storage.no.such", "alt", false}),
    [](const auto& tc) {
      std::string name = tc.param.method + "_" + tc.param.param;
      std::ranges::replace(name, '.', '_');
      return name;
    });

}  // namespace
}  // namespace trainyard::server

namespace trainyard::server {
namespace {

struct PatchCase {
  std::string name;
  std::string body;
  std::string bad_field;  // "" when the body is accepted
  std::optional<std::string> content_type = std::nullopt;
  std::optional<std::string> cache_control =
      std::nullopt;  // headers[0], kObjectHeaderFields' order
  bool clear_metadata = false;
  std::map<std::string, std::optional<std::string>> metadata = {};
};

class ParseObjectPatchTest : public ::testing::TestWithParam<PatchCase> {};

TEST_P(ParseObjectPatchTest, ReadsThePartialResource) {
  const PatchCase& tc = GetParam();
  const Result<store::ObjectPatch> patch = ParseObjectPatch(tc.body);
  if (!AcceptedAsExpected(patch, tc.bad_field)) {
    return;
  }
  EXPECT_EQ(patch->content_type, tc.content_type);
  EXPECT_EQ(patch->headers[0], tc.cache_control);
  for (std::size_t i = 1; i < patch->headers.size(); ++i) {
    EXPECT_FALSE(patch->headers[i].has_value()) << i;
  }
  EXPECT_EQ(patch->metadata.clear, tc.clear_metadata);
  EXPECT_EQ(patch->metadata.keys, tc.metadata);
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, ParseObjectPatchTest,
    ::testing::Values(
        PatchCase{"Empty", "{}", ""},
        PatchCase{"ContentType", R"({"contentType":"text/csv"})", "", "text/csv"},
        PatchCase{"NullContentTypeResets", R"({"contentType":null})", "", ""},
        PatchCase{"HeaderField", R"({"cacheControl":"no-cache"})", "", std::nullopt, "no-cache"},
        PatchCase{"NullHeaderClears", R"({"cacheControl":null})", "", std::nullopt, ""},
        PatchCase{"MetadataSetAndRemove",
                  R"({"metadata":{"a":"1","b":null}})",
                  "",
                  std::nullopt,
                  std::nullopt,
                  false,
                  {{"a", "1"}, {"b", std::nullopt}}},
        PatchCase{"NullMetadataClearsAll", R"({"metadata":null})", "", std::nullopt, std::nullopt,
                  true},
        PatchCase{"OutputOnlyFieldsIgnored",
                  R"({"name":"x","bucket":"b","size":"3","generation":"1","etag":"e"})", ""},
        PatchCase{"NotAnObject", "[]", "body"}, PatchCase{"NotJson", "{", "body"},
        PatchCase{"ContentTypeNotAString", R"({"contentType":3})", "contentType"},
        PatchCase{"MetadataNotAnObject", R"({"metadata":"a"})", "metadata"},
        PatchCase{"MetadataValueNotAString", R"({"metadata":{"k":1}})", "metadata.k"},
        PatchCase{"FieldNotKept", R"({"temporaryHold":true})", "temporaryHold"},
        PatchCase{"Acl", R"({"acl":[]})", "acl"}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::server

namespace trainyard::server {
namespace {

// The bucket every case starts from.
const BucketFields kCurrent{.labels = {{"old", "x"}, {"team", "ml"}},
                            .settings = {{"website", R"({"mainPageSuffix":"index.html"})"}}};

struct BucketResourceCase {
  std::string name;
  BucketWrite mode;
  std::string body;
  std::string bad_field;  // "" when the body is accepted
  BucketFields expected = {};
};

class ApplyBucketResourceTest : public ::testing::TestWithParam<BucketResourceCase> {};

TEST_P(ApplyBucketResourceTest, MergesOrReplacesTheWritableFields) {
  const BucketResourceCase& tc = GetParam();
  const Result<BucketFields> fields = ApplyBucketResource(kCurrent, tc.body, tc.mode);
  if (!AcceptedAsExpected(fields, tc.bad_field)) {
    return;
  }
  EXPECT_EQ(fields->labels, tc.expected.labels);
  EXPECT_EQ(fields->settings, tc.expected.settings);
}

// gcloud sends back the resource it read, with the labels changed.
constexpr std::string_view kAsServed =
    R"({"kind":"storage#bucket","id":"b","name":"b","projectNumber":"1",)"
    R"("metageneration":"3","etag":"CAM=","location":"US",)"
    R"("locationType":"multi-region","storageClass":"STANDARD",)"
    R"("timeCreated":"t","updated":"t","selfLink":"s","labels":{"a":"1"}})";
constexpr auto kPatch = BucketWrite::kPatch;
constexpr auto kReplace = BucketWrite::kReplace;

INSTANTIATE_TEST_SUITE_P(
    Bodies, ApplyBucketResourceTest,
    ::testing::Values(
        BucketResourceCase{"PatchEmptyKeepsAll", kPatch, "{}", "", kCurrent},
        BucketResourceCase{"ReplaceEmptyResetsAll", kReplace, "{}", "", {}},
        BucketResourceCase{"PatchLabelsSetAndRemove",
                           kPatch,
                           R"({"labels":{"a":"1","old":null}})",
                           "",
                           {.labels = {{"a", "1"}, {"team", "ml"}}, .settings = kCurrent.settings}},
        BucketResourceCase{"PatchNullLabelsClearAll",
                           kPatch,
                           R"({"labels":null})",
                           "",
                           {.settings = kCurrent.settings}},
        BucketResourceCase{
            "PatchTheResourceAsServed",
            kPatch,
            std::string(kAsServed),
            "",
            {.labels = {{"a", "1"}, {"old", "x"}, {"team", "ml"}}, .settings = kCurrent.settings}},
        BucketResourceCase{"ReplaceTheResourceAsServed",
                           kReplace,
                           std::string(kAsServed),
                           "",
                           {.labels = {{"a", "1"}}}},
        BucketResourceCase{"PatchMergesWebsite",
                           kPatch,
                           R"({"website":{"notFoundPage":"404.html"}})",
                           "",
                           {.labels = kCurrent.labels,
                            .settings = {{"website", R"({"mainPageSuffix":"index.html",)"
                                                     R"("notFoundPage":"404.html"})"}}}},
        BucketResourceCase{"PatchNullRemovesWebsite",
                           kPatch,
                           R"({"website":null})",
                           "",
                           {.labels = kCurrent.labels}},
        BucketResourceCase{"ReplaceKeepsCors",
                           kReplace,
                           R"({"cors":[{"origin":["*"],"method":["GET"]}]})",
                           "",
                           {.settings = {{"cors", R"([{"method":["GET"],"origin":["*"]}])"}}}},
        BucketResourceCase{"OffValuesAreTaken",
                           kReplace,
                           R"({"versioning":{"enabled":false},"lifecycle":{"rule":[]},)"
                           R"("defaultEventBasedHold":false,"retentionPolicy":null,)"
                           R"("billing":{"requesterPays":false},"encryption":{}})",
                           "",
                           {}},
        BucketResourceCase{"NotAnObject", kPatch, "[]", "body"},
        BucketResourceCase{"NotJson", kReplace, "{", "body"},
        BucketResourceCase{"LabelsNotAnObject", kPatch, R"({"labels":["a"]})", "labels"},
        BucketResourceCase{"LabelValueNotAString", kReplace, R"({"labels":{"k":1}})", "labels.k"},
        BucketResourceCase{"LabelAgainstTheRules", kPatch, R"({"labels":{"Bad Key":"x"}})",
                           "labels"},
        BucketResourceCase{"CorsNotAnArray", kPatch, R"({"cors":{"origin":"*"}})", "cors"},
        BucketResourceCase{"WebsiteNotAnObject", kReplace, R"({"website":"x"})", "website"},
        BucketResourceCase{"AnotherLocation", kPatch, R"({"location":"EU"})", "location"},
        BucketResourceCase{"AnotherStorageClass", kReplace, R"({"storageClass":"NEARLINE"})",
                           "storageClass"},
        BucketResourceCase{"VersioningOn", kPatch, R"({"versioning":{"enabled":true}})",
                           "versioning"},
        BucketResourceCase{"LifecycleRules", kReplace,
                           R"({"lifecycle":{"rule":[{"action":{"type":"Delete"}}]}})", "lifecycle"},
        BucketResourceCase{"RetentionPolicy", kPatch,
                           R"({"retentionPolicy":{"retentionPeriod":"60"}})", "retentionPolicy"},
        BucketResourceCase{"Encryption", kPatch, R"({"encryption":{"defaultKmsKeyName":"k"}})",
                           "encryption"},
        BucketResourceCase{"EventBasedHold", kReplace, R"({"defaultEventBasedHold":true})",
                           "defaultEventBasedHold"},
        BucketResourceCase{"Unknown", kPatch, R"({"frobnicate":1})", "frobnicate"}),
    [](const auto& tc) { return tc.param.name; });

TEST(StorageQueryParams, BucketUpdateTakesWhatPatchTakes) {
  EXPECT_EQ(StorageQueryParams("storage.buckets.update"),
            StorageQueryParams("storage.buckets.patch"));
}

TEST(StorageQueryParams, BucketPatchTakesMetagenerationPreconditionsOnly) {
  const std::vector<std::string> params = StorageQueryParams("storage.buckets.patch");
  EXPECT_NE(std::ranges::find(params, "ifMetagenerationMatch"), params.end());
  EXPECT_NE(std::ranges::find(params, "ifMetagenerationNotMatch"), params.end());
  EXPECT_EQ(std::ranges::find(params, "ifGenerationMatch"), params.end());
}

}  // namespace
}  // namespace trainyard::server
