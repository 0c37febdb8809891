// Sha256 (base/sha256.h): FIPS 180-2's test vectors, whole and in pieces, and from a stream.
#include "base/sha256.h"

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard {
namespace {

struct Sha256Vector {
  std::string input;
  std::string hex;
};

const std::vector<Sha256Vector> kVectors = {
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
};

TEST(Sha256Test, KnownVectorsWholeAndInPieces) {
  for (const Sha256Vector& v : kVectors) {
    Sha256 whole;
    ASSERT_TRUE(whole.ok());
    whole.Add(v.input);
    EXPECT_EQ(whole.Hex(), v.hex) << v.input;

    Sha256 pieces;
    for (const char c : v.input) {
      pieces.Add(std::string_view(&c, 1));
    }
    EXPECT_EQ(pieces.Hex(), v.hex) << v.input;
  }
}

TEST(Sha256Test, AStreamReadToItsEnd) {
  const std::string big(200'000, 'a');  // several of AddStream's reads
  Sha256 direct;
  direct.Add(big);
  std::istringstream in(big);
  Sha256 streamed;
  EXPECT_TRUE(streamed.AddStream(in));
  EXPECT_EQ(streamed.Hex(), direct.Hex());
}

}  // namespace
}  // namespace trainyard
