#include "store/hashes.h"

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"

namespace trainyard::store::internal {
namespace {

struct HashCase {
  std::string name;
  std::string input;
  std::string md5;     // base64, as GCS's md5Hash
  std::string crc32c;  // base64 of the big-endian CRC32C, as GCS's crc32c
};

class KnownVectorsTest : public ::testing::TestWithParam<HashCase> {};

TEST_P(KnownVectorsTest, MatchesTheKnownDigests) {
  const HashCase& c = GetParam();
  const ObjectHashes hashes = HashBytes(c.input);
  EXPECT_EQ(hashes.md5_base64, c.md5);
  EXPECT_EQ(hashes.crc32c_base64, c.crc32c);
  EXPECT_EQ(hashes.size, static_cast<std::int64_t>(c.input.size()));
}

// md5: RFC 1321's test suite; crc32c: RFC 3720 §B.4's check value 0xE3069283 for "123456789".
INSTANTIATE_TEST_SUITE_P(
    Rfc, KnownVectorsTest,
    ::testing::Values(HashCase{"Empty", "", "1B2M2Y8AsgTpgAmY7PhCfg==", "AAAAAA=="},
                      HashCase{"Hello", "hello", "XUFAKrxLKna5cZ2REBfFkg==", "mnG7TA=="},
                      HashCase{"Digits", "123456789", "JfnnlDI7RTiF9RgfG2JNCw==", "4waSgw=="}),
    [](const auto& tc) { return tc.param.name; });

TEST(Crc32c, MatchesTheCastagnoliCheckValue) {
  EXPECT_EQ(ExtendCrc32c(0, "123456789"), 0xE3069283U);
}

TEST(Crc32c, CanBeComputedInPieces) {
  EXPECT_EQ(ExtendCrc32c(ExtendCrc32c(0, "1234"), "56789"), 0xE3069283U);
}

TEST(ObjectHasher, GivesTheSameDigestsFedInPieces) {
  ObjectHasher hasher;
  hasher.Update("he");
  hasher.Update("");
  hasher.Update("llo");
  const ObjectHashes hashes = hasher.Finish();
  EXPECT_EQ(hashes.md5_base64, "XUFAKrxLKna5cZ2REBfFkg==");
  EXPECT_EQ(hashes.size, 5);
}

TEST(HashFile, HashesTheFileContents) {
  trainyard::testing::TempDir dir;
  std::string big(3 << 20, 'x');  // spans several read chunks
  big += "end";
  std::ofstream(dir.File("f"), std::ios::binary) << big;
  Result<ObjectHashes> hashes = HashFile(dir.File("f"));
  ASSERT_TRUE(hashes.ok()) << hashes.status().ToString();
  const ObjectHashes expected = HashBytes(big);
  EXPECT_EQ(hashes->md5_base64, expected.md5_base64);
  EXPECT_EQ(hashes->crc32c_base64, expected.crc32c_base64);
  EXPECT_EQ(hashes->size, static_cast<std::int64_t>(big.size()));
}

TEST(HashFile, IsUnavailableForAMissingFile) {
  EXPECT_EQ(HashFile("/nonexistent/trainyard/file").status().code(), Code::kUnavailable);
}

struct Base64Case {
  std::string name;
  std::string decoded;
  std::string encoded;
};

class Base64Test : public ::testing::TestWithParam<Base64Case> {};

TEST_P(Base64Test, RoundTrips) {
  EXPECT_EQ(Base64Encode(GetParam().decoded), GetParam().encoded);
  EXPECT_EQ(Base64Decode(GetParam().encoded), GetParam().decoded);
}

INSTANTIATE_TEST_SUITE_P(Rfc4648, Base64Test,
                         ::testing::Values(Base64Case{"Empty", "", ""},
                                           Base64Case{"OnePad2", "f", "Zg=="},
                                           Base64Case{"OnePad1", "fo", "Zm8="},
                                           Base64Case{"NoPad", "foo", "Zm9v"},
                                           Base64Case{"Slash", "dir/x\xff", "ZGlyL3j/"}),
                         [](const auto& tc) { return tc.param.name; });

TEST(Base64Decode, RefusesWhatIsNotPaddedBase64) {
  for (const char* bad : {"Zg", "Zg=", "Z===", "====", "Zm9v!A==", "Zg==Zg==", "Zm 9"}) {
    EXPECT_FALSE(Base64Decode(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace trainyard::store::internal
