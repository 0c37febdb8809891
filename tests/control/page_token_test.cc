#include "control/page_token.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "base/base64.h"

namespace trainyard::control {
namespace {

TEST(PageToken, RoundTripsTheCursorToTheNanosecond) {
  const store::ListCursor cursor{WallTime(std::chrono::nanoseconds(1'700'000'000'123'456'789)),
                                 "census_job_7"};
  Result<store::ListCursor> decoded = DecodePageToken(EncodePageToken(cursor));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->create_time, cursor.create_time);
  EXPECT_EQ(decoded->job_id, cursor.job_id);
}

TEST(PageToken, IsSafeInAQueryStringUnescaped) {
  const std::string token = EncodePageToken(
      {WallTime(std::chrono::nanoseconds(0x0fffffffffffffffLL)), std::string(128, 'z')});
  for (const char c : token) {
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') << c;
  }
}

struct BadToken {
  std::string name;
  std::string token;
};

class MalformedPageTokenTest : public ::testing::TestWithParam<BadToken> {};

TEST_P(MalformedPageTokenTest, IsInvalidArgumentOnPageToken) {
  const Result<store::ListCursor> decoded = DecodePageToken(GetParam().token);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), Code::kInvalidArgument);
  ASSERT_EQ(decoded.status().violations().size(), 1U);
  EXPECT_EQ(decoded.status().violations()[0].field, "pageToken");
}

std::string Token(const std::string& bytes) {
  return Base64Encode(bytes, Base64Alphabet::kUrlSafe);
}

INSTANTIATE_TEST_SUITE_P(
    Tokens, MalformedPageTokenTest,
    ::testing::Values(BadToken{"NotBase64", "!!!!"}, BadToken{"Padded", "AQAAAAAAAAAAag=="},
                      BadToken{"HeaderOnly", Token(std::string("\x01\0\0\0\0\0\0\0\0", 9))},
                      BadToken{"WrongVersion", Token(std::string("\x02\0\0\0\0\0\0\0\0job", 12))},
                      BadToken{"PathInJobId", Token(std::string("\x01\0\0\0\0\0\0\0\0../x", 13))},
                      BadToken{"NulInJobId", Token(std::string("\x01\0\0\0\0\0\0\0\0j\0b", 12))},
                      BadToken{"TooShort", Token("\x01")}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::control
