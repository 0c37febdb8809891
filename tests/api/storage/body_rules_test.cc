// The storage API's write bodies read with the strict reader in the storage dialect
// (api/storage/rules.h): the object resource a write sends (`ParseObjectWrite`: multipart's first
// part, a resumable upload's POST, a compose's destination) and objects.compose's request
// (`ParseComposeRequest`). Each refusal is checked by the member it names and its words.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/storage/rules.h"

namespace trainyard::server {
namespace {

using Map = std::map<std::string, std::string>;

// Checks a refusal: INVALID_ARGUMENT whose first violation is on `field`, worded `message` (unless
// that is ""). True when the parse was accepted and `field` is "" (the case's values come next).
template <typename T>
bool AsExpected(const Result<T>& parsed, const std::string& field, const std::string& message) {
  if (field.empty()) {
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    return parsed.ok();
  }
  EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument) << parsed.status().ToString();
  if (parsed.ok() || parsed.status().violations().empty()) {
    ADD_FAILURE() << "no violation; expected one on " << field;
    return false;
  }
  const FieldViolation& first = parsed.status().violations()[0];
  EXPECT_EQ(first.field, field) << parsed.status().ToString();
  if (!message.empty()) {
    EXPECT_EQ(first.description, message);
  }
  return false;
}

struct WriteCase {
  std::string name;
  std::string body;
  std::string bad_field;  // "" when accepted
  std::string message = "";
  ObjectWrite expected = {};
};

class ParseObjectWriteTest : public ::testing::TestWithParam<WriteCase> {};

TEST_P(ParseObjectWriteTest, ReadsTheResourceAWriteSends) {
  const WriteCase& tc = GetParam();
  const Result<ObjectWrite> write = ParseObjectWrite(tc.body);
  if (!AsExpected(write, tc.bad_field, tc.message)) {
    return;
  }
  EXPECT_EQ(write->name, tc.expected.name);
  EXPECT_EQ(write->content_type, tc.expected.content_type);
  EXPECT_EQ(write->metadata, tc.expected.metadata);
  EXPECT_EQ(write->headers.cache_control, tc.expected.headers.cache_control);
  EXPECT_EQ(write->headers.content_encoding, tc.expected.headers.content_encoding);
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, ParseObjectWriteTest,
    ::testing::Values(
        WriteCase{"Blank", " \n", ""}, WriteCase{"Empty", "{}", ""},
        WriteCase{"NameTypeAndMetadata",
                  R"({"name":"d/x.csv","contentType":"text/csv","metadata":{"k":"v"}})",
                  "",
                  "",
                  {.name = "d/x.csv", .content_type = "text/csv", .metadata = {{"k", "v"}}}},
        WriteCase{"HeaderFields",
                  R"({"cacheControl":"no-cache","contentEncoding":"gzip"})",
                  "",
                  "",
                  {.headers = {.cache_control = "no-cache", .content_encoding = "gzip"}}},
        // What the clients send along (gcloud's bucket, the Python client's checksums).
        WriteCase{"OutputOnlyIgnored",
                  R"({"name":"n","bucket":"b","crc32c":"AAAAAA==","md5Hash":"x","kind":"k"})",
                  "",
                  "",
                  {.name = "n"}},
        WriteCase{"NullsAreNoValue",
                  R"({"name":null,"contentType":null,"metadata":{"a":"1","b":null}})",
                  "",
                  "",
                  {.metadata = {{"a", "1"}}}},
        WriteCase{"NotAnObject", "[1]", "body", "The object metadata must be a JSON object."},
        WriteCase{"NotJson", "{", "body", "The object metadata must be a JSON object."},
        WriteCase{"NameNotAString", R"({"name":3})", "name", "Invalid value for name: a string."},
        WriteCase{"ContentTypeNotAString", R"({"contentType":["a"]})", "contentType",
                  "Invalid value for contentType: a string or null."},
        WriteCase{"MetadataValueNotAString", R"({"metadata":{"x":1}})", "metadata.x",
                  "Invalid value for metadata.x: a string or null."},
        WriteCase{"MetadataNotAnObject", R"({"metadata":"a"})", "metadata",
                  "Invalid value for metadata: an object or null."},
        WriteCase{"FieldNotKept", R"({"name":"n","temporaryHold":true})", "temporaryHold",
                  "The object field temporaryHold is not known to this server."}),
    [](const auto& tc) { return tc.param.name; });

struct ComposeCase {
  std::string name;
  std::string body;
  std::string bad_field;  // "" when accepted
  std::string message = "";
  std::size_t sources = 0;
};

class ParseComposeRequestTest : public ::testing::TestWithParam<ComposeCase> {};

TEST_P(ParseComposeRequestTest, ReadsSourcesAndRefusesWhatGcsRefuses) {
  const ComposeCase& tc = GetParam();
  const Result<ComposeRequest> request = ParseComposeRequest(tc.body);
  if (!AsExpected(request, tc.bad_field, tc.message)) {
    return;
  }
  EXPECT_EQ(request->sources.size(), tc.sources);
}

std::string Sources(int count) {
  std::string list;
  for (int i = 0; i < count; ++i) {
    list += (i > 0 ? "," : "") + std::string(R"({"name":"part)") + std::to_string(i) + "\"}";
  }
  return R"({"sourceObjects":[)" + list + "]}";
}

std::string OneSource(const std::string& members) {
  return R"({"sourceObjects":[{"name":"a")" + members + "}]}";
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, ParseComposeRequestTest,
    ::testing::Values(
        ComposeCase{"One", Sources(1), "", "", 1},
        ComposeCase{"ThirtyTwo", Sources(kMaxComposeSources), "", "", kMaxComposeSources},
        ComposeCase{"ThirtyThree", Sources(kMaxComposeSources + 1), "sourceObjects",
                    "The number of source components provided (33) exceeds the maximum (32)."},
        ComposeCase{"None", R"({"sourceObjects":[]})", "sourceObjects",
                    "Required: at least one source object."},
        ComposeCase{"Missing", R"({"destination":{}})", "sourceObjects",
                    "Required: sourceObjects."},
        ComposeCase{"SourcesNotAnArray", R"({"sourceObjects":{"name":"a"}})", "sourceObjects",
                    "Invalid value for sourceObjects: an array."},
        ComposeCase{"NotAnObject", "[]", "body",
                    "The request body must be a JSON compose request (sourceObjects, "
                    "destination)."},
        ComposeCase{"NoName", R"({"sourceObjects":[{"name":"a"},{"generation":"1"}]})",
                    "sourceObjects[1].name", "Required: sourceObjects[1].name."},
        ComposeCase{"EmptyName", R"({"sourceObjects":[{"name":""}]})", "sourceObjects[0].name",
                    "Invalid value for sourceObjects[0].name: an object name, not empty."},
        ComposeCase{"NameNotAString", R"({"sourceObjects":[{"name":7}]})", "sourceObjects[0].name",
                    "Invalid value for sourceObjects[0].name: a string."},
        ComposeCase{"SourceNotAnObject", R"({"sourceObjects":["a"]})", "sourceObjects[0]",
                    "Invalid value for sourceObjects[0]: an object."},
        ComposeCase{"GenerationAsString", OneSource(R"(,"generation":"12")"), "", "", 1},
        ComposeCase{"GenerationAsNumber", OneSource(R"(,"generation":12)"), "", "", 1},
        ComposeCase{"GenerationNull", OneSource(R"(,"generation":null)"), "", "", 1},
        ComposeCase{"GenerationNotANumber", OneSource(R"(,"generation":"x")"),
                    "sourceObjects[0].generation",
                    "Invalid value for sourceObjects[0].generation: a whole number, 0 or more."},
        ComposeCase{"GenerationNegative", OneSource(R"(,"generation":"-1")"),
                    "sourceObjects[0].generation",
                    "Invalid value for sourceObjects[0].generation: a whole number, 0 or more."},
        ComposeCase{"GenerationAFraction", OneSource(R"(,"generation":1.5)"),
                    "sourceObjects[0].generation"},
        ComposeCase{"PreconditionNotANumber",
                    OneSource(R"(,"objectPreconditions":{"ifGenerationMatch":"1.5"})"),
                    "sourceObjects[0].objectPreconditions.ifGenerationMatch"},
        ComposeCase{"PreconditionNegative",
                    OneSource(R"(,"objectPreconditions":{"ifGenerationMatch":-3})"),
                    "sourceObjects[0].objectPreconditions.ifGenerationMatch"},
        ComposeCase{"UnknownPrecondition",
                    OneSource(R"(,"objectPreconditions":{"ifMetagenerationMatch":"1"})"),
                    "sourceObjects[0].objectPreconditions.ifMetagenerationMatch",
                    "The sourceObjects[0].objectPreconditions field ifMetagenerationMatch is not "
                    "known to this server."},
        ComposeCase{"UnknownSourceMember", OneSource(R"(,"bucket":"other")"),
                    "sourceObjects[0].bucket",
                    "The sourceObjects[0] field bucket is not known to this server."},
        ComposeCase{"UnknownRequestMember", R"({"sourceObjects":[{"name":"a"}],"x":1})", "x",
                    "The compose request field x is not known to this server."},
        ComposeCase{"DestinationMetadataNotAString",
                    R"({"sourceObjects":[{"name":"a"}],"destination":{"metadata":{"k":2}}})",
                    "destination.metadata.k",
                    "Invalid value for destination.metadata.k: a string or null."},
        ComposeCase{"DestinationNotAnObject", R"({"sourceObjects":[{"name":"a"}],"destination":3})",
                    "destination", "Invalid value for destination: an object."}),
    [](const auto& tc) { return tc.param.name; });

TEST(ParseComposeRequest, KeepsGenerationsPreconditionsAndTheDestination) {
  const Result<ComposeRequest> request = ParseComposeRequest(
      R"({"kind":"storage#composeRequest","sourceObjects":[{"name":"a","generation":"7",)"
      R"("objectPreconditions":{"ifGenerationMatch":"7"}},{"name":"b"}],)"
      R"("destination":{"contentType":"text/csv","metadata":{"k":"v"},"cacheControl":"no-cache"}})");
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  EXPECT_EQ(request->sources[0].name, "a");
  EXPECT_EQ(request->sources[0].generation, 7);
  EXPECT_EQ(request->sources[0].if_generation_match, 7);
  EXPECT_EQ(request->sources[1].name, "b");
  EXPECT_FALSE(request->sources[1].generation.has_value());
  EXPECT_FALSE(request->sources[1].if_generation_match.has_value());
  EXPECT_EQ(request->destination.content_type, "text/csv");
  EXPECT_EQ(request->destination.metadata, (Map{{"k", "v"}}));
  EXPECT_EQ(request->destination.headers.cache_control, "no-cache");
}

// Every problem of a body is named, not only the first.
TEST(ParseComposeRequest, NamesEveryBadSource) {
  const Result<ComposeRequest> request = ParseComposeRequest(
      R"({"sourceObjects":[{"generation":"x"},{"name":"b"},{"name":"c","generation":-1}]})");
  ASSERT_FALSE(request.ok());
  std::vector<std::string> fields;
  for (const FieldViolation& violation : request.status().violations()) {
    fields.push_back(violation.field);
  }
  EXPECT_EQ(fields,
            (std::vector<std::string>{"sourceObjects[0].name", "sourceObjects[0].generation",
                                      "sourceObjects[2].generation"}));
}

}  // namespace
}  // namespace trainyard::server
