#include "tuning/metric_file.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace trainyard::tuning {

// Found by gtest through argument-dependent lookup, so outside the anonymous namespace.
void PrintTo(const MetricPoint& point, std::ostream* os) {
  *os << fmt::format("{{step {}, value {}, timestamp {}}}", point.step, point.value,
                     point.timestamp);
}

namespace {

// One line as cloudml-hypertune writes it (json.dumps(..., sort_keys=True)).
std::string LibraryLine(std::string_view tag, std::string_view value, std::int64_t step,
                        double timestamp) {
  return fmt::format(
      R"({{"checkpoint_path": "", "global_step": "{}", "timestamp": {}, "trial": "2", "{}": "{}"}})",
      step, timestamp, tag, value);
}

struct ParseCase {
  std::string name;
  std::string text;
  std::string tag;
  std::vector<MetricPoint> want;
};

class ParseMetricFileTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(ParseMetricFileTest, ReadsTheEntriesCarryingTheTag) {
  EXPECT_EQ(ParseMetricFile(GetParam().text, GetParam().tag), GetParam().want);
}

const std::string kDefault(kDefaultMetricTag);

INSTANTIATE_TEST_SUITE_P(
    Table, ParseMetricFileTest,
    ::testing::Values(
        ParseCase{"ReferenceLine",
                  R"({"global_step": "500", "timestamp": 1700000000.25, "trial": "2", )"
                  R"("val_accuracy": "0.912"})"
                  "\n",
                  "val_accuracy",
                  {{500, 0.912, 1700000000.25}}},
        ParseCase{"SeveralLinesInFileOrder",
                  LibraryLine("acc", "0.5", 100, 10.5) + "\n" + LibraryLine("acc", "0.25", 200, 9) +
                      "\n" + LibraryLine("acc", "0.75", 300, 11) + "\n",
                  "acc",
                  {{100, 0.5, 10.5}, {200, 0.25, 9}, {300, 0.75, 11}}},
        ParseCase{"EmptyTagMeansDefault",
                  LibraryLine(kDefault, "1.5", 7, 3) + "\n" + LibraryLine("loss", "9", 8, 4) + "\n",
                  "",
                  {{7, 1.5, 3}}},
        ParseCase{"OtherTagIgnored",
                  LibraryLine("loss", "0.3", 1, 1) + "\n" + LibraryLine("acc", "0.7", 1, 1) + "\n" +
                      LibraryLine(kDefault, "0.1", 1, 1) + "\n",
                  "acc",
                  {{1, 0.7, 1}}},
        ParseCase{"NumericAndStringValues",
                  R"({"acc": 0.5, "global_step": 3, "timestamp": 1.5})"
                  "\n"
                  R"({"acc": "-2e-3", "global_step": "4", "timestamp": 2.5})"
                  "\n"
                  R"({"acc": 7, "global_step": "5", "timestamp": "3.5"})"
                  "\n",
                  "acc",
                  {{3, 0.5, 1.5}, {4, -0.002, 2.5}, {5, 7, 3.5}}},
        ParseCase{"TruncatedLastLine",
                  LibraryLine("acc", "0.5", 1, 1) + "\n" + R"({"acc": "0.6", "global_step": "2", )",
                  "acc",
                  {{1, 0.5, 1}}},
        ParseCase{"CompleteLastLineWithoutNewline",
                  LibraryLine("acc", "0.5", 1, 1) + "\n" + LibraryLine("acc", "0.6", 2, 2),
                  "acc",
                  {{1, 0.5, 1}, {2, 0.6, 2}}},
        ParseCase{"GarbageAndBlankLines",
                  "\n\nhello\n[1, 2]\n\"acc\"\nnull\n{\n}\n" + LibraryLine("acc", "0.5", 1, 1) +
                      "\r\n   \n{\"acc\": \"0.6\"} trailing\n",
                  "acc",
                  {{1, 0.5, 1}}},
        ParseCase{
            "NonFiniteAndNonNumericValuesSkipped",
            LibraryLine("acc", "nan", 1, 1) + "\n" + LibraryLine("acc", "inf", 2, 2) + "\n" +
                LibraryLine("acc", "-inf", 3, 3) + "\n" + LibraryLine("acc", "NaN", 4, 4) + "\n" +
                LibraryLine("acc", "", 5, 5) + "\n" + LibraryLine("acc", "0.5x", 6, 6) + "\n" +
                LibraryLine("acc", " 1", 7, 7) + "\n" + R"({"acc": null, "timestamp": 8})" + "\n" +
                R"({"acc": true, "timestamp": 9})" + "\n" + LibraryLine("acc", "0.25", 10, 10),
            "acc",
            {{10, 0.25, 10}}},
        ParseCase{"MissingGlobalStepIsZero",
                  R"({"acc": "0.5", "timestamp": 4.0, "trial": "1"})",
                  "acc",
                  {{0, 0.5, 4}}},
        ParseCase{"NonIntegerGlobalStepSkipped",
                  R"({"acc": "0.5", "global_step": "1.5", "timestamp": 1})"
                  "\n"
                  R"({"acc": "0.5", "global_step": 2.5, "timestamp": 2})"
                  "\n"
                  R"({"acc": "0.5", "global_step": "", "timestamp": 3})"
                  "\n"
                  R"({"acc": "0.5", "global_step": "-4", "timestamp": 4})",
                  "acc",
                  {{-4, 0.5, 4}}},
        ParseCase{"MissingOrBadTimestampIsZero",
                  R"({"acc": "0.5", "global_step": "1"})"
                  "\n"
                  R"({"acc": "0.5", "global_step": "2", "timestamp": "soon"})",
                  "acc",
                  {{1, 0.5, 0}, {2, 0.5, 0}}},
        ParseCase{"EmptyText", "", "acc", {}}),
    [](const auto& tc) { return tc.param.name; });

struct MergeCase {
  std::string name;
  std::vector<MetricPoint> history;
  std::vector<MetricPoint> fresh;
  std::vector<MetricPoint> want;
};

class MergeMetricPointsTest : public ::testing::TestWithParam<MergeCase> {};

TEST_P(MergeMetricPointsTest, AddsNewPointsInOrder) {
  std::vector<MetricPoint> history = GetParam().history;
  MergeMetricPoints(history, GetParam().fresh);
  EXPECT_EQ(history, GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, MergeMetricPointsTest,
    ::testing::Values(MergeCase{"SortsIntoEmptyHistory",
                                {},
                                {{3, 0.3, 30}, {1, 0.1, 10}, {2, 0.2, 20}},
                                {{1, 0.1, 10}, {2, 0.2, 20}, {3, 0.3, 30}}},
                      MergeCase{"SkipsPointsAlreadySeen",
                                {{1, 0.1, 10}, {2, 0.2, 20}},
                                {{1, 0.1, 10}, {2, 0.2, 20}, {3, 0.3, 30}},
                                {{1, 0.1, 10}, {2, 0.2, 20}, {3, 0.3, 30}}},
                      MergeCase{"KeepsWhatTheWindowForgot",
                                {{1, 0.1, 10}, {2, 0.2, 20}, {3, 0.3, 30}},
                                {{3, 0.3, 30}, {4, 0.4, 40}},
                                {{1, 0.1, 10}, {2, 0.2, 20}, {3, 0.3, 30}, {4, 0.4, 40}}},
                      MergeCase{"InsertsAnOlderPointInPlace",
                                {{2, 0.2, 20}, {3, 0.3, 30}},
                                {{1, 0.1, 10}},
                                {{1, 0.1, 10}, {2, 0.2, 20}, {3, 0.3, 30}}},
                      MergeCase{"OrdersTimestampTiesByStep",
                                {{5, 0.5, 10}},
                                {{9, 0.9, 10}, {1, 0.1, 10}},
                                {{1, 0.1, 10}, {5, 0.5, 10}, {9, 0.9, 10}}},
                      MergeCase{"KeepsDifferentValuesAtTheSameKeyInArrivalOrder",
                                {{1, 0.6, 10}},
                                {{1, 0.5, 10}, {1, 0.6, 10}, {1, 0.7, 10}},
                                {{1, 0.6, 10}, {1, 0.5, 10}, {1, 0.7, 10}}},
                      MergeCase{"CollapsesIdenticalFreshPoints",
                                {},
                                {{1, 0.1, 10}, {1, 0.1, 10}},
                                {{1, 0.1, 10}}},
                      MergeCase{"SameStepAndValueAtAnotherTimeIsNew",
                                {{0, 0.5, 10}},
                                {{0, 0.5, 11}},
                                {{0, 0.5, 10}, {0, 0.5, 11}}}),
    [](const auto& tc) { return tc.param.name; });

// The library rewrites the file with its last 100 entries on every report; reading it after each
// report and merging keeps every point, once, in order.
TEST(MergeMetricPoints, KeepsEveryPointWhileTheLibrarysWindowSlides) {
  constexpr int kReports = 250;
  constexpr int kWindow = 100;
  std::vector<std::string> lines;
  std::vector<MetricPoint> history;
  for (std::int64_t i = 0; i < kReports; ++i) {
    lines.push_back(LibraryLine("acc", fmt::format("{}", 0.001 * static_cast<double>(i)), 10 * i,
                                1000.0 + static_cast<double>(i)));
    std::string file;
    for (std::size_t j = lines.size() > kWindow ? lines.size() - kWindow : 0; j < lines.size();
         ++j) {
      file += lines[j] + "\n";
    }
    if (i % 7 == 0 || i == kReports - 1) {  // the controller polls; it misses no more than 100
      MergeMetricPoints(history, ParseMetricFile(file, "acc"));
    }
  }
  ASSERT_EQ(history.size(), static_cast<std::size_t>(kReports));
  for (std::int64_t i = 0; i < kReports; ++i) {
    EXPECT_EQ(history[i], (MetricPoint{10 * i, 0.001 * static_cast<double>(i),
                                       1000.0 + static_cast<double>(i)}))
        << "point " << i;
  }
}

struct LatestCase {
  std::string name;
  std::vector<MetricPoint> points;
  std::optional<MetricPoint> want;
};

class LatestMetricTest : public ::testing::TestWithParam<LatestCase> {};

TEST_P(LatestMetricTest, PicksTheCurrentMeasurement) {
  EXPECT_EQ(LatestMetric(GetParam().points), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(Table, LatestMetricTest,
                         ::testing::Values(LatestCase{"Empty", {}, std::nullopt},
                                           LatestCase{"NewestTimestampWherever",
                                                      {{1, 0.1, 10}, {3, 0.3, 30}, {2, 0.2, 20}},
                                                      MetricPoint{3, 0.3, 30}},
                                           LatestCase{"NewerTimestampBeatsLargerStep",
                                                      {{9, 0.9, 10}, {1, 0.1, 11}},
                                                      MetricPoint{1, 0.1, 11}},
                                           LatestCase{"TimestampTieTakesLargerStep",
                                                      {{2, 0.2, 10}, {5, 0.5, 10}, {3, 0.3, 10}},
                                                      MetricPoint{5, 0.5, 10}},
                                           LatestCase{"FullTieTakesTheLaterOne",
                                                      {{5, 0.5, 10}, {5, 0.6, 10}, {4, 0.9, 10}},
                                                      MetricPoint{5, 0.6, 10}}),
                         [](const auto& tc) { return tc.param.name; });

// A multi-objective trial reports each metric under its own tag, one line a report; each
// metric's final value is read from its own lines.
TEST(FinalMetricsTest, EachTagHasItsOwnFinalValue) {
  const std::string text =
      LibraryLine("acc", "0.5", 1, 100) + "\n" + LibraryLine("loss", "0.9", 1, 100.5) + "\n" +
      LibraryLine("acc", "0.7", 2, 101) + "\n" + LibraryLine("loss", "0.4", 2, 101.5) + "\n" +
      LibraryLine("acc", "0.6", 3, 102) + "\n";
  const std::vector<std::vector<MetricPoint>> curves = {
      ParseMetricFile(text, "acc"), ParseMetricFile(text, "loss"), ParseMetricFile(text, "ms")};
  const std::vector<model::GoalType> goals = {
      model::GoalType::kMaximize, model::GoalType::kMinimize, model::GoalType::kMinimize};
  const struct {
    std::string name;
    bool best;
    std::vector<std::optional<MetricPoint>> want;
  } cases[] = {
      {"Last", false, {MetricPoint{3, 0.6, 102}, MetricPoint{2, 0.4, 101.5}, std::nullopt}},
      {"Best", true, {MetricPoint{2, 0.7, 101}, MetricPoint{2, 0.4, 101.5}, std::nullopt}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(FinalMetrics(curves, goals, c.best), c.want) << c.name;
  }
  EXPECT_EQ(FinalMetrics(std::vector<std::vector<MetricPoint>>{curves[0], curves[1]},
                         std::vector<model::GoalType>{goals[0], goals[1]}, false),
            (std::vector<std::optional<MetricPoint>>{MetricPoint{3, 0.6, 102},
                                                     MetricPoint{2, 0.4, 101.5}}));
}

}  // namespace
}  // namespace trainyard::tuning
