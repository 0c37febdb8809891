// The strict JSON reader (base/json_reader.h) and its dialects (base/json_dialects.h): each
// row reads one document with the same small schema and lists the problems, as worded.
#include "base/json_reader.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "base/json_dialects.h"

namespace trainyard {
namespace {

using nlohmann::json;

// The schema every row reads: {s: string, i: int32, l: int64, b: bool, n: number, o: {x: string},
// a: array, list: [string], map: {string: string}}, under `root`.
struct Read {
  std::vector<JsonError> errors;
  std::vector<std::string> unknown;
};

Read ReadDocument(const JsonDialect& dialect, const std::string& text,
                  const std::string& root = "spec") {
  Read out;
  JsonReader reader(dialect, [&out](JsonError error) { out.errors.push_back(std::move(error)); });
  const json document = json::parse(text);
  JsonObject object(reader, document, root, {.type = "Spec"});
  object.String("s", {.type = "TYPE_STRING", .owner = "Spec"});
  object.Int32("i", {.type = "int32", .owner = "Spec"});
  object.Int64("l", {.type = "int64", .owner = "Spec"});
  object.Bool("b", {.type = "bool", .owner = "Spec"});
  object.Number("n", {.type = "double", .owner = "Spec"});
  if (const json* nested = object.Object("o", {.type = "Nested", .owner = "Spec"})) {
    JsonObject inner(reader, *nested, object.ChildPath("o"));
    inner.String("x", {.type = "string", .owner = "Nested"});
    inner.Finish();
  }
  object.Array("a", {.type = "[]int", .owner = "Spec"});
  object.StringList("list", {.type = "[]string", .item = "string", .owner = "Spec"});
  object.StringMap("map", {.type = "map[string]string", .item = "string", .owner = "Spec"});
  object.Unsupported("old", "it is gone");
  object.Finish();
  out.unknown = reader.unknown();
  return out;
}

std::vector<std::string> Messages(const Read& read) {
  std::vector<std::string> out;
  for (const JsonError& error : read.errors) {
    out.push_back(error.message);
  }
  return out;
}

struct Row {
  const char* name;
  const JsonDialect* dialect;
  const char* body;
  std::vector<std::string> messages;
};

const Row kRows[] = {
    // A good document reads clean in every dialect.
    {"ml_good",
     &kMlV1JsonDialect,
     R"({"s":"x","i":1,"l":2,"b":true,"n":1.5,"o":{"x":"y"},"a":[],"list":["a"],"map":{"k":"v"}})",
     {}},
    {"catalog_good", &kCatalogJsonDialect, R"({"s":"x","i":1,"b":false,"list":[]})", {}},

    // ml v1: the value and the proto type quoted, Google's unknown-name words.
    {"ml_wrong_string",
     &kMlV1JsonDialect,
     R"({"s":3})",
     {"Invalid value at 'spec.s' (TYPE_STRING), 3: expected a string"}},
    {"ml_int_range",
     &kMlV1JsonDialect,
     R"({"i":3000000000})",
     {"Invalid value at 'spec.i' (int32), 3000000000: out of range [-2147483648, 2147483647]"}},
    {"ml_int_fraction",
     &kMlV1JsonDialect,
     R"({"l":1.5})",
     {"Invalid value at 'spec.l' (int64), 1.5: not an integer"}},
    {"ml_int_text",
     &kMlV1JsonDialect,
     R"({"l":"12x"})",
     {"Invalid value at 'spec.l' (int64), \"12x\": not a base-10 integer"}},
    {"ml_int_as_text_and_float", &kMlV1JsonDialect, R"({"l":"12","i":3.0})", {}},
    {"ml_int_wrong",
     &kMlV1JsonDialect,
     R"({"i":true})",
     {"Invalid value at 'spec.i' (int32), true: expected an integer, as a number or a decimal "
      "string"}},
    {"ml_object",
     &kMlV1JsonDialect,
     R"({"o":[1]})",
     {"Invalid value at 'spec.o' (Nested), [...]: expected a JSON object"}},
    {"ml_map_item",
     &kMlV1JsonDialect,
     R"({"map":{"k":1,"z":null}})",
     {"Invalid value at 'spec.map.k' (string), 1: expected a string",
      "Invalid value at 'spec.map.z', null: null is not allowed as a map value"}},
    {"ml_unknown",
     &kMlV1JsonDialect,
     R"({"zz":1,"o":{"q\"":2}})",
     {"Invalid JSON payload received. Unknown name \"q\\\"\" at 'spec.o': Cannot find field.",
      "Invalid JSON payload received. Unknown name \"zz\" at 'spec': Cannot find field."}},
    {"ml_unsupported",
     &kMlV1JsonDialect,
     R"({"old":1})",
     {"Invalid JSON payload received. 'spec.old' is not supported: it is gone."}},
    {"ml_null_is_unset", &kMlV1JsonDialect, R"({"s":null,"o":null})", {}},

    // Vertex: shorter words.
    {"vertex_wrong",
     &kVertexJsonDialect,
     R"({"s":3,"b":"x","list":["a",2],"map":{"k":1}})",
     {"Invalid value at 'spec.s': expected a string",
      "Invalid value at 'spec.b': expected true or false",
      "Invalid value at 'spec.list': expected a list of strings",
      "Invalid value at 'spec.map.k': expected a string"}},
    {"vertex_int32",
     &kVertexJsonDialect,
     R"({"i":5000000000,"l":"x"})",
     {"Invalid value at 'spec.i': expected a 32-bit integer",
      "Invalid value at 'spec.l': expected an integer"}},
    {"vertex_unknown_and_unsupported",
     &kVertexJsonDialect,
     R"({"old":1,"zz":2})",
     {"spec.old is not supported by trainyard: it is gone",
      "Invalid JSON payload received. Unknown name \"zz\" at 'spec': Cannot find field."}},

    // Kubernetes: Go's type errors, item errors on the field that holds the list or map; integers
    // only as JSON integers; unknown members listed, not reported.
    {"kube_wrong",
     &kKubeJsonDialect,
     R"({"i":"1","l":1.0,"b":1})",
     {"json: cannot unmarshal string into Go struct field Spec.spec.i of type int32",
      "json: cannot unmarshal number 1.0 into Go struct field Spec.spec.l of type int64",
      "json: cannot unmarshal number 1 into Go struct field Spec.spec.b of type bool"}},
    {"kube_items",
     &kKubeJsonDialect,
     R"({"list":["a",null],"map":{"k":true},"o":3})",
     {"json: cannot unmarshal number 3 into Go struct field Spec.spec.o of type Nested",
      "json: cannot unmarshal null into Go struct field Spec.spec.list of type string",
      "json: cannot unmarshal bool into Go struct field Spec.spec.map of type string"}},
    {"kube_unknown_not_reported", &kKubeJsonDialect, R"({"zz":1,"o":{"y":2}})", {}},
    {"kube_unsupported",
     &kKubeJsonDialect,
     R"({"old":1})",
     {"spec.old: not supported by trainyard: it is gone"}},

    // Cloud Storage: the caller's words or the type's; null is read, not absent; integers from
    // strings (GCS's int64).
    {"storage_good",
     &kStorageJsonDialect,
     R"({"s":"x","l":"12","i":3,"list":["a"],"map":{"k":"v"}})",
     {}},
    {"storage_wrong",
     &kStorageJsonDialect,
     R"({"s":null,"i":"x","b":1,"o":{"x":2},"map":{"k":1}})",
     {"Invalid value for spec.s: TYPE_STRING.", "Invalid value for spec.i: int32.",
      "Invalid value for spec.b: bool.", "Invalid value for spec.o.x: string.",
      "Invalid value for spec.map.k: string."}},
    {"storage_unknown_and_unsupported",
     &kStorageJsonDialect,
     R"({"zz":1,"old":2})",
     {"The spec field old cannot be set on this server: it is gone.",
      "The spec field zz is not known to this server."}},

    // The catalog: null is a wrong type; required members.
    {"catalog_wrong",
     &kCatalogJsonDialect,
     R"({"s":null,"i":1.5,"n":"x","list":[""]})",
     {"field \"s\": expected a non-empty string", "field \"i\": expected an integer",
      "field \"n\": expected a number >= 0"}},
    {"catalog_lists",
     &kCatalogJsonDialect,
     R"({"list":"a","a":{},"o":[]})",
     {"field \"o\": expected an object", "field \"a\": expected an array",
      "field \"list\": expected an array of strings"}},
    {"catalog_list_item",
     &kCatalogJsonDialect,
     R"({"list":[1]})",
     {"field \"list\": expected an array of non-empty strings"}},
    {"catalog_unknown_and_unsupported",
     &kCatalogJsonDialect,
     R"({"zz":1,"old":2})",
     {"field \"old\": not supported: it is gone", "unknown field \"zz\""}},
};

class JsonReaderTable : public testing::TestWithParam<Row> {};

TEST_P(JsonReaderTable, WordsEachProblemInItsDialect) {
  const Row& row = GetParam();
  // The catalog's objects are entries named outside the reader: their paths are bare keys.
  const std::string root = row.dialect == &kCatalogJsonDialect ? "" : "spec";
  EXPECT_EQ(Messages(ReadDocument(*row.dialect, row.body, root)), row.messages);
}

INSTANTIATE_TEST_SUITE_P(Rows, JsonReaderTable, testing::ValuesIn(kRows),
                         [](const testing::TestParamInfo<Row>& row) { return row.param.name; });

TEST(JsonReader, AnUnknownMemberIsReportedOnItsParentAndLocatedAtItsKey) {
  const Read read = ReadDocument(kMlV1JsonDialect, R"({"o":{"q":1}})");
  ASSERT_EQ(read.errors.size(), 1U);
  EXPECT_EQ(read.errors[0].field, "spec.o");
  EXPECT_EQ(read.errors[0].locus, "spec.o.q");
  EXPECT_EQ(read.unknown, (std::vector<std::string>{"spec.o.q"}));
}

TEST(JsonReader, KubernetesListsUnknownMembersByPath) {
  const Read read = ReadDocument(kKubeJsonDialect, R"({"zz":1,"o":{"y":2}})");
  EXPECT_TRUE(read.errors.empty());
  EXPECT_EQ(read.unknown, (std::vector<std::string>{"spec.o.y", "spec.zz"}));
}

TEST(JsonReader, TheRootIsShownByName) {
  std::vector<JsonError> errors;
  JsonReader reader(
      kMlV1JsonDialect, [&](JsonError error) { errors.push_back(std::move(error)); }, "job");
  JsonObject object(reader, json::array(), "", {.type = "Job"});
  EXPECT_FALSE(object.is_object());
  EXPECT_EQ(object.Take("anything"), nullptr);
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0].field, "job");
  EXPECT_EQ(errors[0].message, "Invalid value at 'job' (Job), [...]: expected a JSON object");

  errors.clear();
  JsonReader vertex(kVertexJsonDialect,
                    [&](JsonError error) { errors.push_back(std::move(error)); });
  JsonObject root(vertex, json(3), "");
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0].message, "Invalid value at 'root': expected an object");

  errors.clear();
  JsonReader catalog(kCatalogJsonDialect,
                     [&](JsonError error) { errors.push_back(std::move(error)); });
  JsonObject entry(catalog, json("x"), "");
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0].message, "expected a JSON object, got string");
}

TEST(JsonReader, GoogleNamesNoObjectForAnUnknownMemberOfTheRequestItself) {
  std::vector<JsonError> errors;
  JsonReader reader(kMlV1JsonDialect, [&](JsonError error) { errors.push_back(std::move(error)); });
  const json document = json::parse(R"({"force":true})");
  JsonObject(reader, document, "").Finish();
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0].field, "");
  EXPECT_EQ(errors[0].locus, "force");
  EXPECT_EQ(errors[0].message,
            "Invalid JSON payload received. Unknown name \"force\": Cannot find field.");
}

// trainyard v1's own words: what was expected (the caller's, when it gives them) and what came;
// an unknown member lists the names its object takes.
TEST(JsonReader, TrainyardSaysWhatWasExpectedAndWhatCame) {
  std::vector<JsonError> errors;
  JsonReader reader(kTrainyardJsonDialect,
                    [&](JsonError error) { errors.push_back(std::move(error)); });
  // "a" is a list of sixty 1s, shown cut to its first 100 bytes.
  json document = json::parse(R"({"n":"64","q":256,"z":null,"b":1,"o":{"k":1}})");
  document["a"] = std::vector<int>(60, 1);
  std::string shown = "[1";
  for (int i = 1; i < 50; ++i) {
    shown += ",1";
  }
  JsonObject object(reader, document, "");
  object.Int64("n");
  object.String("q", {.type = "a quantity such as \"256Gi\""});
  object.Int32("z");
  object.Bool("a");
  if (const json* nested = object.Object("o")) {
    JsonObject inner(reader, *nested, object.ChildPath("o"));
    inner.String("x");
    inner.Finish();
  }
  object.Finish();
  std::vector<std::pair<std::string, std::string>> got;
  for (const JsonError& error : errors) {
    got.emplace_back(error.locus, error.message);
  }
  const std::vector<std::pair<std::string, std::string>> want = {
      {"n", R"(expected a whole number, got "64")"},
      {"q", R"(expected a quantity such as "256Gi", got 256)"},
      {"z", "expected a whole number, got null"},
      {"a", "expected true or false, got " + shown + "..."},
      {"o.k", "unknown field: expected x"},
      {"b", "unknown field: expected n, q, z, a or o"},
  };
  EXPECT_EQ(got, want);
}

// Cloud Storage's words: the type's when the caller gives none, the root by the resource's name.
TEST(JsonReader, StorageNamesTheResourceAndWhatGoesThere) {
  std::vector<std::pair<std::string, std::string>> got;
  JsonReader reader(
      kStorageJsonDialect,
      [&](JsonError error) { got.emplace_back(std::move(error.locus), std::move(error.message)); },
      "bucket");
  const json document = json::parse(R"({"cors":{},"labels":[],"n":"x","zz":null})");
  JsonObject object(reader, document, "");
  object.Array("cors");
  object.StringMap("labels");
  object.Int64("n");
  object.Take("name", /*required=*/true);
  object.Finish();
  const std::vector<std::pair<std::string, std::string>> want = {
      {"cors", "Invalid value for cors: an array."},
      {"labels", "Invalid value for labels: an object of strings."},
      {"n", "Invalid value for n: a whole number."},
      {"name", "Required: name."},
      {"zz", "The bucket field zz is not known to this server."},
  };
  EXPECT_EQ(got, want);
}

TEST(JsonReader, ARequiredMemberThatIsAbsentIsMissing) {
  std::vector<JsonError> errors;
  JsonReader reader(kCatalogJsonDialect,
                    [&](JsonError error) { errors.push_back(std::move(error)); });
  const json document = json::object();
  JsonObject object(reader, document, "");
  EXPECT_EQ(object.Take("name", /*required=*/true), nullptr);
  EXPECT_EQ(object.Take("notes"), nullptr);
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0].message, "field \"name\": missing");
}

TEST(JsonReader, ReadsValuesAndLeavesOutputAloneOnError) {
  JsonReader reader(kMlV1JsonDialect, [](const JsonError&) {});
  std::int64_t number = 7;
  EXPECT_TRUE(reader.Int64(json("-9223372036854775808"), "x", number));
  EXPECT_EQ(number, std::numeric_limits<std::int64_t>::min());
  EXPECT_FALSE(reader.Int64(json(9223372036854775808.0), "x", number));
  EXPECT_EQ(number, std::numeric_limits<std::int64_t>::min());
  std::vector<std::string> list{"kept"};
  EXPECT_FALSE(reader.StringList(json::parse(R"(["a", 1])"), "x", list));
  EXPECT_EQ(list, (std::vector<std::string>{"kept"}));
  std::string text = "kept";
  EXPECT_FALSE(reader.String(json("\xff"), "x", text));
  EXPECT_EQ(text, "kept");
}

TEST(JsonReader, ANumberMustBeFinite) {
  std::vector<std::string> messages;
  JsonReader reader(kMlV1JsonDialect,
                    [&](const JsonError& error) { messages.push_back(error.message); });
  double number = 1;
  EXPECT_FALSE(reader.Number(json(std::numeric_limits<double>::infinity()), "n", number,
                             {.type = "TYPE_DOUBLE"}));
  EXPECT_EQ(number, 1);
  EXPECT_EQ(messages,
            (std::vector<std::string>{"Invalid value at 'n' (TYPE_DOUBLE), null: expected a "
                                      "finite number"}));
}

TEST(JsonReader, QuotesValuesForMessagesShortAndEscaped) {
  EXPECT_EQ(QuoteForMessage("a\"b\n"), R"("a\"b\n")");
  EXPECT_EQ(QuoteForMessage("\xff"), "\"\xEF\xBF\xBD\"");
  EXPECT_EQ(QuoteForMessage(std::string(500, 'x')), "\"" + std::string(100, 'x') + "...\"");
  EXPECT_EQ(JsonChildPath("", "a"), "a");
  EXPECT_EQ(JsonChildPath("a", "b"), "a.b");
  EXPECT_EQ(JsonIndexPath("a", 2), "a[2]");
}

}  // namespace
}  // namespace trainyard
