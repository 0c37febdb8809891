// gcloud's YAML output, row by row: each expected text was printed by gcloud 528's own
// `resource_printer.Print(record, 'yaml')` (ruamel.yaml) for the JSON record in the same row.
#include "cli/output/yaml_printer.h"

#include <string>

#include <gtest/gtest.h>

namespace trainyard::cli {
namespace {

struct YamlCase {
  std::string name;
  std::string json;
  std::string yaml;
};

class FormatYamlTest : public ::testing::TestWithParam<YamlCase> {};

TEST_P(FormatYamlTest, PrintsWhatGcloudPrints) {
  auto yaml = FormatYaml(GetParam().json);
  ASSERT_TRUE(yaml.ok()) << yaml.status().ToString();
  EXPECT_EQ(*yaml, GetParam().yaml);
}

INSTANTIATE_TEST_SUITE_P(
    Gcloud528, FormatYamlTest,
    ::testing::Values(
        YamlCase{"PlainWords", R"json({"k": "trainer.task"})json",
                 R"yaml(k: trainer.task
)yaml"},
        YamlCase{"EmptyString", R"json({"k": ""})json",
                 R"yaml(k: ''
)yaml"},
        YamlCase{
            "LooksLikeNumbers",
            R"json({"a": "3", "b": "2.11", "c": "1e3", "d": "0x1f", "e": "-1", "f": "1_000", "g": ".5"})json",
            R"yaml(a: '3'
b: '2.11'
c: '1e3'
d: '0x1f'
e: '-1'
f: '1_000'
g: '.5'
)yaml"},
        YamlCase{
            "LooksLikeOtherScalars",
            R"json({"a": "true", "b": "False", "c": "null", "d": "~", "e": "yes", "f": "on"})json",
            R"yaml(a: 'true'
b: 'False'
c: 'null'
d: '~'
e: yes
f: on
)yaml"},
        YamlCase{
            "Timestamps",
            R"json({"createTime": "2018-02-27T22:09:40Z", "d": "2018-02-27", "t": "12:30"})json",
            R"yaml(createTime: '2018-02-27T22:09:40Z'
d: '2018-02-27'
t: 12:30
)yaml"},
        YamlCase{
            "ResolverFirstCharacters",
            R"json({"a": "_1", "b": "+_1", "c": "1:2", "d": "0b2", "e": "1.2.3", "f": "-.5", "g": "2018-2-7 1:02:03 +01"})json",
            R"yaml(a: _1
b: '+_1'
c: 1:2
d: 0b2
e: 1.2.3
f: '-.5'
g: '2018-2-7 1:02:03 +01'
)yaml"},
        YamlCase{
            "IndicatorsInFront",
            R"json({"a": "-", "b": "- a", "c": "-a", "d": "#x", "e": "*a", "f": "@a", "g": "%a", "h": "?a", "i": ": a", "j": "[a]", "k": "!a", "l": "|a"})json",
            R"yaml(a: '-'
b: '- a'
c: -a
d: '#x'
e: '*a'
f: '@a'
g: '%a'
h: ?a
i: ': a'
j: '[a]'
k: '!a'
l: '|a'
)yaml"},
        YamlCase{
            "IndicatorsInside",
            R"json({"a": "a: b", "b": "a:b", "c": "a #b", "d": "a#b", "e": "a,b", "f": "gs://b/x"})json",
            R"yaml(a: 'a: b'
b: a:b
c: 'a #b'
d: a#b
e: a,b
f: gs://b/x
)yaml"},
        YamlCase{"Quotes", R"json({"a": "'a", "b": "\"a", "c": "it's", "d": "a 'b' c"})json",
                 R"yaml(a: "'a"
b: '"a'
c: it's
d: a 'b' c
)yaml"},
        YamlCase{"Whitespace", R"json({"a": "a ", "b": " a", "c": "a  b", "d": "a\tb"})json",
                 R"yaml(a: 'a '
b: ' a'
c: a  b
d: "a\tb"
)yaml"},
        YamlCase{
            "Unicode",
            R"json({"a": "\u00e9", "b": "\u65e5\u672c\u8a9e", "c": "\u0007", "d": "\ud83d\ude00 x\t"})json",
            R"yaml(a: é
b: 日本語
c: "\a"
d: "\U0001F600 x\t"
)yaml"},
        YamlCase{"DocumentMarkers", R"json({"a": "---", "b": "...", "c": "a..."})json",
                 R"yaml(a: '---'
b: '...'
c: a...
)yaml"},
        YamlCase{"SpecialTags", R"json({"a": "<<", "b": "=", "c": "!", "d": "&"})json",
                 R"yaml(a: '<<'
b: '='
c: '!'
d: '&'
)yaml"},
        YamlCase{
            "LongPlainFolds",
            R"json({"errorMessage": "The replica master 0 exited with a non-zero status of 1. The replica master 0 exited with a non-zero status of 1. The replica master 0 exited with a non-zero status of 1. "})json",
            R"yaml(errorMessage: 'The replica master 0 exited with a non-zero status of 1. The replica
  master 0 exited with a non-zero status of 1. The replica master 0 exited with a
  non-zero status of 1. '
)yaml"},
        YamlCase{
            "LongWordDoesNotFold",
            R"json({"k": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa b cccccccccc"})json",
            R"yaml(k: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
  b cccccccccc
)yaml"},
        YamlCase{
            "LongSingleQuotedFolds",
            R"json({"k": "--long=a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a "})json",
            R"yaml(k: '--long=a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a
  a a a a a a a a a a a a a a '
)yaml"},
        YamlCase{
            "LongDoubleQuotedFolds",
            R"json({"k": ["Cannot schedule the job: it's taking a while Cannot schedule the job: it's taking a while Cannot schedule the job: it's taking a while Cannot schedule the job: it's taking a while ", "x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' "]})json",
            R"yaml(k:
- "Cannot schedule the job: it's taking a while Cannot schedule the job: it's taking\
  \ a while Cannot schedule the job: it's taking a while Cannot schedule the job:\
  \ it's taking a while "
- "x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x\
  \ 'y' x 'y' x 'y' x 'y' x 'y' x 'y' x 'y' "
)yaml"},
        YamlCase{
            "DoubleQuotedFoldAfterEscape",
            R"json({"k": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx y\tz w w w w w w w w w w w w w w w w w w w w "})json",
            R"yaml(k: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx y\tz w\
  \ w w w w w w w w w w w w w w w w w w w "
)yaml"},
        YamlCase{
            "MultiLine",
            R"json({"a": "a\nb", "b": "a\nb\n", "c": "a\n\n", "d": " a\nb", "e": "\nx", "f": ["x\ny"]})json",
            R"yaml(a: |-
  a
  b
b: |
  a
  b
c: |+
  a

d: |2-
   a
  b
e: |2-

  x
f:
- |-
  x
  y
)yaml"},
        YamlCase{
            "Nesting",
            R"json({"b": 1, "a": [{"y": 1, "x": 2}, [1, 2], [], {}], "c": {"d": {"e": "f"}, "g": []}})json",
            R"yaml(a:
- x: 2
  y: 1
- - 1
  - 2
- []
- {}
b: 1
c:
  d:
    e: f
  g: []
)yaml"},
        YamlCase{
            "Numbers",
            R"json({"i": 7, "n": -3, "f": 1.0, "g": 0.001, "h": 1234567.0, "j": 1e-05, "k": 123.456789, "l": 10000000000.0, "m": 0.1, "b": true, "z": null})json",
            R"yaml(b: true
f: 1.0
g: 0.001
h: 1234567.0
i: 7
j: 1e-05
k: 123.457
l: 1e+10
m: 0.1
n: -3
z: null
)yaml"},
        YamlCase{"KeysQuotedLikeValues", R"json({"true": 1, "3": 2, "a b": 3, "a: b": 4})json",
                 R"yaml('3': 2
a b: 3
'a: b': 4
'true': 1
)yaml"},
        YamlCase{
            "JobResource",
            R"json({"jobId": "job_1", "createTime": "2026-11-21T10:59:05.328932Z", "etag": "ZUm8XyWXvDI=", "labels": {"a": "b"}, "state": "QUEUED", "trainingInput": {"args": ["--epochs", "3"], "enableWebAccess": false, "masterConfig": {"acceleratorConfig": {"count": "4", "type": "NVIDIA_TESLA_T4"}}, "workerCount": "2", "hyperparameters": {"params": [{"parameterName": "lr", "minValue": 0.001, "maxValue": 1.0, "type": "DOUBLE", "discreteValues": [16.0, 32.0]}]}}})json",
            R"yaml(createTime: '2026-11-21T10:59:05.328932Z'
etag: ZUm8XyWXvDI=
jobId: job_1
labels:
  a: b
state: QUEUED
trainingInput:
  args:
  - --epochs
  - '3'
  enableWebAccess: false
  hyperparameters:
    params:
    - discreteValues:
      - 16.0
      - 32.0
      maxValue: 1.0
      minValue: 0.001
      parameterName: lr
      type: DOUBLE
  masterConfig:
    acceleratorConfig:
      count: '4'
      type: NVIDIA_TESLA_T4
  workerCount: '2'
)yaml"}),
    [](const auto& tc) { return tc.param.name; });

TEST(FormatYaml, KeepsTheGivenKeyOrderForProjections) {
  auto yaml = FormatYaml(R"({"jobId":"j","state":"QUEUED","startTime":"2024-01-01T00:00:00"})",
                         KeyOrder::kAsGiven);
  ASSERT_TRUE(yaml.ok());
  EXPECT_EQ(*yaml, "jobId: j\nstate: QUEUED\nstartTime: '2024-01-01T00:00:00'\n");
}

TEST(FormatYaml, RefusesTextThatIsNotJson) {
  EXPECT_EQ(FormatYaml("{").status().code(), Code::kInvalidArgument);
}

struct FloatCase {
  std::string name;
  double value;
  std::string text;
};

class FormatGcloudFloatTest : public ::testing::TestWithParam<FloatCase> {};

TEST_P(FormatGcloudFloatTest, MatchesTransformFloat) {
  EXPECT_EQ(FormatGcloudFloat(GetParam().value), GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(
    TransformFloat, FormatGcloudFloatTest,
    ::testing::Values(FloatCase{"Whole", 1.0, "1.0"}, FloatCase{"Zero", 0.0, "0.0"},
                      FloatCase{"Negative", -2.5, "-2.5"}, FloatCase{"Small", 0.001, "0.001"},
                      FloatCase{"Tiny", 1e-05, "1e-05"},
                      FloatCase{"SixDigits", 123.456789, "123.457"},
                      FloatCase{"MillionsWithoutExponent", 1234567.0, "1234567.0"},
                      FloatCase{"HundredThousand", 100000.0, "100000.0"},
                      FloatCase{"BillionsWithExponent", 1e10, "1e+10"},
                      FloatCase{"RoundsOff", 0.1 + 0.2, "0.3"}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::cli
