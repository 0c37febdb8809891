#include "model/wire_text.h"

#include <gtest/gtest.h>

namespace trainyard::model::internal {
namespace {

struct TextCase {
  const char* name;
  std::string text;
  bool valid;
};

class Base64Test : public ::testing::TestWithParam<TextCase> {};

TEST_P(Base64Test, RequiresPadding) {
  EXPECT_EQ(IsPaddedBase64(GetParam().text), GetParam().valid);
}

INSTANTIATE_TEST_SUITE_P(
    Etags, Base64Test,
    ::testing::Values(TextCase{"EightBytes", "w6rbTnTz3wQ=", true},
                      TextCase{"TwoPads", "YQ==", true}, TextCase{"NoPadNeeded", "YWJj", true},
                      TextCase{"PlusSlash", "+/+/", true},
                      TextCase{"Unpadded", "w6rbTnTz3wQ", false}, TextCase{"Short", "abc", false},
                      TextCase{"ThreePads", "Y===", false}, TextCase{"OnlyPads", "====", false},
                      TextCase{"PadInside", "YQ=a", false}, TextCase{"UrlSafe", "-_-_", false},
                      TextCase{"Space", "YW Jj", false}),
    [](const auto& tc) { return std::string(tc.param.name); });

TEST(ParseTimestampInRange, AcceptsOnlyWhatNanosecondsHold) {
  EXPECT_TRUE(ParseTimestampInRange("1678-01-01T00:00:00Z").has_value());
  EXPECT_TRUE(ParseTimestampInRange("2261-12-31T23:59:59.999999999Z").has_value());
  EXPECT_FALSE(ParseTimestampInRange("1677-12-31T23:59:59Z").has_value());
  EXPECT_FALSE(ParseTimestampInRange("2262-01-01T00:00:00Z").has_value());
  EXPECT_FALSE(ParseTimestampInRange("0001-01-01T00:00:00Z").has_value());
  EXPECT_FALSE(ParseTimestampInRange("-123-01-01T00:00:00Z").has_value());
  EXPECT_FALSE(ParseTimestampInRange("").has_value());
}

TEST(ParseDurationInRange, AcceptsOnlyWhatNanosecondsHold) {
  EXPECT_EQ(ParseDurationInRange("9223372035.999999999s"), Duration(9'223'372'035'999'999'999LL));
  EXPECT_EQ(ParseDurationInRange("-9223372035s"), Duration(-9'223'372'035'000'000'000LL));
  EXPECT_EQ(ParseDurationInRange("0.5s"), Duration(500'000'000));
  EXPECT_FALSE(ParseDurationInRange("9223372036s").has_value());
  EXPECT_FALSE(ParseDurationInRange("315576000000s").has_value());
  EXPECT_FALSE(ParseDurationInRange("--5s").has_value());
  EXPECT_FALSE(ParseDurationInRange("-s").has_value());
  EXPECT_FALSE(ParseDurationInRange(".5s").has_value());
  EXPECT_FALSE(ParseDurationInRange("5").has_value());
}

}  // namespace
}  // namespace trainyard::model::internal
