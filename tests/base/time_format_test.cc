#include "base/time_format.h"

#include <limits>

#include <gtest/gtest.h>

namespace trainyard {
namespace {

using std::chrono::nanoseconds;
using std::chrono::seconds;

WallTime At(std::int64_t secs, std::int64_t nanos = 0) {
  return WallTime(
      std::chrono::duration_cast<WallTime::duration>(seconds(secs) + nanoseconds(nanos)));
}

struct TimestampCase {
  const char* name;
  const char* text;
  bool valid;
  std::int64_t secs;
  std::int64_t nanos;
};

class ParseTimestampTest : public ::testing::TestWithParam<TimestampCase> {};

TEST_P(ParseTimestampTest, Parses) {
  const auto& tc = GetParam();
  const auto parsed = ParseTimestamp(tc.text);
  ASSERT_EQ(parsed.has_value(), tc.valid) << tc.text;
  if (tc.valid) {
    EXPECT_EQ(*parsed, At(tc.secs, tc.nanos)) << tc.text;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rfc3339, ParseTimestampTest,
    ::testing::Values(TimestampCase{"WholeSeconds", "2018-02-27T22:09:40Z", true, 1519769380, 0},
                      TimestampCase{"Micros", "2026-11-21T09:35:01.760285Z", true, 1795253701,
                                    760285000},
                      TimestampCase{"NineDigits", "1970-01-01T01:00:00.000000001Z", true, 3600, 1},
                      TimestampCase{"Offset", "2018-02-27T23:09:40+01:00", true, 1519769380, 0},
                      TimestampCase{"LowercaseT", "2018-02-27t22:09:40z", true, 1519769380, 0},
                      TimestampCase{"TenDigits", "2018-02-27T22:09:40.0000000001Z", false, 0, 0},
                      TimestampCase{"NoZone", "2018-02-27T22:09:40", false, 0, 0},
                      TimestampCase{"BadMonth", "2018-13-27T22:09:40Z", false, 0, 0},
                      TimestampCase{"Feb30", "2018-02-30T22:09:40Z", false, 0, 0},
                      TimestampCase{"Trailing", "2018-02-27T22:09:40Zx", false, 0, 0},
                      TimestampCase{"Empty", "", false, 0, 0},
                      TimestampCase{"EmptyFraction", "2018-02-27T22:09:40.Z", false, 0, 0},
                      TimestampCase{"BeforeInt64Nanos", "1677-12-31T00:00:00Z", false, 0, 0},
                      TimestampCase{"AfterInt64Nanos", "2262-01-01T00:00:00Z", false, 0, 0},
                      TimestampCase{"Year9999", "9999-12-31T23:59:59Z", false, 0, 0}),
    [](const auto& tc) { return std::string(tc.param.name); });

TEST(FormatTimestamp, UsesProtobufFractionWidths) {
  EXPECT_EQ(FormatTimestamp(At(1519769380)), "2018-02-27T22:09:40Z");
  EXPECT_EQ(FormatTimestamp(At(1519769380, 500'000'000)), "2018-02-27T22:09:40.500Z");
  EXPECT_EQ(FormatTimestamp(At(1519769380, 1'000)), "2018-02-27T22:09:40.000001Z");
  EXPECT_EQ(FormatTimestamp(At(1519769380, 1)), "2018-02-27T22:09:40.000000001Z");
}

TEST(FormatTimestamp, MicrosIsFixedWidth) {
  EXPECT_EQ(FormatTimestampMicros(At(1519769380)), "2018-02-27T22:09:40.000000Z");
  EXPECT_EQ(FormatTimestampMicros(At(1795253701, 760285999)), "2026-11-21T09:35:01.760285Z");
}

TEST(FormatTimestamp, RoundTrips) {
  for (const auto t : {At(0), At(1519769380, 123'000'000), At(4102444799, 999'999'999)}) {
    EXPECT_EQ(ParseTimestamp(FormatTimestamp(t)), t);
  }
}

struct DurationCase {
  const char* name;
  const char* text;
  bool valid;
  std::int64_t nanos;
};

class ParseDurationTest : public ::testing::TestWithParam<DurationCase> {};

TEST_P(ParseDurationTest, Parses) {
  const auto& tc = GetParam();
  const auto parsed = ParseDuration(tc.text);
  ASSERT_EQ(parsed.has_value(), tc.valid) << tc.text;
  if (tc.valid) {
    EXPECT_EQ(parsed->count(), tc.nanos) << tc.text;
  }
}

INSTANTIATE_TEST_SUITE_P(
    ProtobufJson, ParseDurationTest,
    ::testing::Values(DurationCase{"Whole", "7200s", true, 7'200'000'000'000},
                      DurationCase{"Fraction", "1.5s", true, 1'500'000'000},
                      DurationCase{"Nanos", "0.000000001s", true, 1},
                      DurationCase{"Negative", "-2s", true, -2'000'000'000},
                      DurationCase{"NoSuffix", "7200", false, 0},
                      DurationCase{"Minutes", "30m", false, 0},
                      DurationCase{"OnlySuffix", "s", false, 0},
                      DurationCase{"TooBig", "99999999999999999999s", false, 0},
                      DurationCase{"TenDigits", "1.0000000001s", false, 0},
                      DurationCase{"Garbage", "1x5s", false, 0},
                      DurationCase{"DoubleMinus", "--5s", false, 0},
                      DurationCase{"PlusSign", "+5s", false, 0},
                      DurationCase{"Int64Limit", "9223372035s", true, 9'223'372'035'000'000'000},
                      DurationCase{"BeyondInt64Nanos", "9223372037s", false, 0}),
    [](const auto& tc) { return std::string(tc.param.name); });

TEST(FormatDuration, MatchesProtobuf) {
  EXPECT_EQ(FormatDuration(seconds(7200)), "7200s");
  EXPECT_EQ(FormatDuration(nanoseconds(1'500'000'000)), "1.500s");
  EXPECT_EQ(FormatDuration(nanoseconds(1)), "0.000000001s");
  EXPECT_EQ(FormatDuration(nanoseconds(-2'000'001'000)), "-2.000001s");
  EXPECT_EQ(FormatDuration(nanoseconds(std::numeric_limits<std::int64_t>::min())),
            "-9223372036.854775808s");
}

}  // namespace
}  // namespace trainyard
