#include "base/base64.h"

#include <string>

#include <gtest/gtest.h>

namespace trainyard {
namespace {

struct Vector {
  std::string name;
  std::string bytes;
  std::string standard;
  std::string url_safe;
};

class Base64VectorTest : public ::testing::TestWithParam<Vector> {};

TEST_P(Base64VectorTest, EncodesAndDecodesBothAlphabets) {
  const Vector& v = GetParam();
  EXPECT_EQ(Base64Encode(v.bytes, Base64Alphabet::kStandard), v.standard);
  EXPECT_EQ(Base64Encode(v.bytes, Base64Alphabet::kUrlSafe), v.url_safe);
  EXPECT_EQ(Base64Decode(v.standard, Base64Alphabet::kStandard), v.bytes);
  EXPECT_EQ(Base64Decode(v.url_safe, Base64Alphabet::kUrlSafe), v.bytes);
}

INSTANTIATE_TEST_SUITE_P(  // RFC 4648 §10, plus the two characters the alphabets differ in
    Rfc4648, Base64VectorTest,
    ::testing::Values(Vector{"Empty", "", "", ""}, Vector{"F", "f", "Zg==", "Zg"},
                      Vector{"Fo", "fo", "Zm8=", "Zm8"}, Vector{"Foo", "foo", "Zm9v", "Zm9v"},
                      Vector{"Foob", "foob", "Zm9vYg==", "Zm9vYg"},
                      Vector{"Fooba", "fooba", "Zm9vYmE=", "Zm9vYmE"},
                      Vector{"Foobar", "foobar", "Zm9vYmFy", "Zm9vYmFy"},
                      Vector{"HighBits", "\xfb\xff", "+/8=", "-_8"}),
    [](const auto& tc) { return tc.param.name; });

struct Malformed {
  std::string name;
  std::string text;
  Base64Alphabet alphabet;
};

class Base64MalformedTest : public ::testing::TestWithParam<Malformed> {};

TEST_P(Base64MalformedTest, IsRejected) {
  EXPECT_EQ(Base64Decode(GetParam().text, GetParam().alphabet), std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(
    Strict, Base64MalformedTest,
    ::testing::Values(Malformed{"MissingPadding", "Zg", Base64Alphabet::kStandard},
                      Malformed{"ShortPadding", "Zg=", Base64Alphabet::kStandard},
                      Malformed{"ThreePads", "Z===", Base64Alphabet::kStandard},
                      Malformed{"PadInside", "Z=g=", Base64Alphabet::kStandard},
                      Malformed{"StrayBits", "Zh==", Base64Alphabet::kStandard},
                      Malformed{"UrlCharInStandard", "-_8=", Base64Alphabet::kStandard},
                      Malformed{"PaddingInUrlSafe", "Zg==", Base64Alphabet::kUrlSafe},
                      Malformed{"StandardCharInUrlSafe", "+/8", Base64Alphabet::kUrlSafe},
                      Malformed{"OneCharGroup", "Zm9vY", Base64Alphabet::kUrlSafe},
                      Malformed{"Space", "Zm9 v", Base64Alphabet::kUrlSafe},
                      Malformed{"Nul", std::string("Zm\0v", 4), Base64Alphabet::kUrlSafe}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard
