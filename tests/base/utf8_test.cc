#include "base/utf8.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace trainyard {
namespace {

// `pattern` with each '*' replaced by U+FFFD (no test input contains '*').
std::string Fffd(std::string_view pattern) {
  std::string out;
  for (const char c : pattern) {
    if (c == '*') {
      out.append(kUtf8Replacement);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// The UTF-8 encoding of `code` (which may be a surrogate: this encodes, it does not check).
std::string Encode(std::uint32_t code) {
  std::string out;
  const auto put = [&](std::uint32_t byte) { out.push_back(static_cast<char>(byte)); };
  if (code < 0x80U) {
    put(code);
  } else if (code < 0x800U) {
    put(0xC0U | (code >> 6U));
    put(0x80U | (code & 0x3FU));
  } else if (code < 0x10000U) {
    put(0xE0U | (code >> 12U));
    put(0x80U | ((code >> 6U) & 0x3FU));
    put(0x80U | (code & 0x3FU));
  } else {
    put(0xF0U | (code >> 18U));
    put(0x80U | ((code >> 12U) & 0x3FU));
    put(0x80U | ((code >> 6U) & 0x3FU));
    put(0x80U | (code & 0x3FU));
  }
  return out;
}

struct Utf8Case {
  const char* name;
  std::string text;
  bool valid;
  std::string sanitised;  // ToValidUtf8(text), '*' standing for U+FFFD
};

void PrintTo(const Utf8Case& c, std::ostream* os) {
  *os << c.name;
}

class Utf8Test : public ::testing::TestWithParam<Utf8Case> {};

TEST_P(Utf8Test, ChecksAndSanitises) {
  const Utf8Case& c = GetParam();
  const std::string expected = Fffd(c.sanitised);
  EXPECT_EQ(IsValidUtf8(c.text), c.valid);
  EXPECT_EQ(ToValidUtf8(c.text), expected);
  EXPECT_TRUE(IsValidUtf8(expected));
  EXPECT_EQ(ToValidUtf8(expected), expected);
}

TEST_P(Utf8Test, AssignReplacesWhatWasThere) {
  std::string out = "stale contents that are longer than most inputs \xFF";
  AssignValidUtf8(GetParam().text, out);
  EXPECT_EQ(out, Fffd(GetParam().sanitised));
}

// The same text between ASCII runs of odd and word-multiple lengths, so that the eight-byte
// ASCII scan stops at, before and after the interesting bytes.
TEST_P(Utf8Test, SameBetweenAsciiRuns) {
  for (const std::string& pad : {std::string("abc"), std::string(8, 'p'), std::string(13, 'q')}) {
    std::string text = pad;
    text += GetParam().text;
    text += pad;
    std::string expected = pad;
    expected += Fffd(GetParam().sanitised);
    expected += pad;
    EXPECT_EQ(IsValidUtf8(text), GetParam().valid) << pad;
    EXPECT_EQ(ToValidUtf8(text), expected) << pad;
  }
}

INSTANTIATE_TEST_SUITE_P(
    WellFormed, Utf8Test,
    ::testing::Values(Utf8Case{"Empty", "", true, ""}, Utf8Case{"Ascii", "plain", true, "plain"},
                      Utf8Case{"LongAscii", std::string(40, 'x'), true, std::string(40, 'x')},
                      Utf8Case{"Nul", std::string("a\0b", 3), true, std::string("a\0b", 3)},
                      Utf8Case{"TwoByte", "\xC3\xA9", true, "\xC3\xA9"},
                      Utf8Case{"ThreeByte", "\xE2\x82\xAC", true, "\xE2\x82\xAC"},
                      Utf8Case{"FourByte", "\xF0\x9F\x98\x80", true, "\xF0\x9F\x98\x80"},
                      Utf8Case{"FirstTwoByte", "\xC2\x80", true, "\xC2\x80"},
                      Utf8Case{"LastTwoByte", "\xDF\xBF", true, "\xDF\xBF"},
                      Utf8Case{"FirstThreeByte", "\xE0\xA0\x80", true, "\xE0\xA0\x80"},
                      Utf8Case{"BeforeSurrogates", "\xED\x9F\xBF", true, "\xED\x9F\xBF"},
                      Utf8Case{"AfterSurrogates", "\xEE\x80\x80", true, "\xEE\x80\x80"},
                      Utf8Case{"LastThreeByte", "\xEF\xBF\xBF", true, "\xEF\xBF\xBF"},
                      Utf8Case{"FirstFourByte", "\xF0\x90\x80\x80", true, "\xF0\x90\x80\x80"},
                      Utf8Case{"LastCodePoint", "\xF4\x8F\xBF\xBF", true, "\xF4\x8F\xBF\xBF"}),
    [](const auto& tc) { return std::string(tc.param.name); });

// One U+FFFD per maximal subpart (Unicode §3.9, "U+FFFD Substitution of Maximal Subparts").
INSTANTIATE_TEST_SUITE_P(
    IllFormed, Utf8Test,
    ::testing::Values(Utf8Case{"LoneContinuation", "\x80", false, "*"},
                      Utf8Case{"ContinuationRun", "\x80\xBF\x80", false, "***"},
                      Utf8Case{"InvalidLeadFF", "\xFF", false, "*"},
                      Utf8Case{"InvalidLeadFE",
                               "a\xFE"
                               "b",
                               false, "a*b"},
                      Utf8Case{"OverlongTwoByteC0", "\xC0\xAF", false, "**"},
                      Utf8Case{"OverlongTwoByteC1", "\xC1\xBF", false, "**"},
                      Utf8Case{"OverlongThreeByte", "\xE0\x80\xAF", false, "***"},
                      Utf8Case{"OverlongFourByte", "\xF0\x80\x80\xAF", false, "****"},
                      Utf8Case{"HighSurrogate", "\xED\xA0\x80", false, "***"},
                      Utf8Case{"LowSurrogate", "\xED\xBF\xBF", false, "***"},
                      Utf8Case{"PastMaxF4", "\xF4\x90\x80\x80", false, "****"},
                      Utf8Case{"PastMaxF5", "\xF5\x80\x80\x80", false, "****"},
                      Utf8Case{"FiveByteForm", "\xF8\x88\x80\x80\x80", false, "*****"},
                      Utf8Case{"TruncatedTwoAtEnd", "\xC3", false, "*"},
                      Utf8Case{"TruncatedThreeAtEnd", "\xE2\x82", false, "*"},
                      Utf8Case{"TruncatedFourAtEnd", "\xF0\x9F\x98", false, "*"},
                      Utf8Case{"TruncatedBeforeAscii",
                               "\xE2\x82"
                               "A",
                               false, "*A"},
                      Utf8Case{"TruncatedBeforeLead", "\xF0\x9F\xC3\xA9", false, "*\xC3\xA9"},
                      Utf8Case{"EachByteOfOldModelTest",
                               "a\xFF"
                               "b\xE2\x82",
                               false, "a*b*"},
                      // The examples of Unicode 15 §3.9, Tables 3-8 to 3-11.
                      Utf8Case{"UnicodeTable3_8",
                               "a\xF1\x80\x80\xE1\x80\xC2"
                               "b\x80"
                               "c\x80\xBF"
                               "d",
                               false, "a***b*c**d"},
                      Utf8Case{"UnicodeTable3_9NonShortest",
                               "\xC0\xAF\xE0\x80\xBF\xF0\x81\x82"
                               "A",
                               false, "********A"},
                      Utf8Case{"UnicodeTable3_10Surrogates",
                               "\xED\xA0\x80\xED\xBF\xBF\xED\xAF"
                               "A",
                               false, "********A"},
                      Utf8Case{"UnicodeTable3_11Other",
                               "\xF4\x91\x92\x93\xFF"
                               "A\x80\xBF"
                               "B",
                               false, "*****A**B"},
                      Utf8Case{"UnicodeTable3_11Truncated",
                               "\xE1\x80\xE2\xF0\x91\x92\xF1\xBF"
                               "A",
                               false, "****A"}),
    [](const auto& tc) { return std::string(tc.param.name); });

// Every scalar value (past U+FFFF, those at the edges of their last two bytes' range) is valid
// and kept; every proper prefix of its encoding is one maximal subpart, so one U+FFFD; every
// surrogate's encoding is three.
TEST(Utf8, EveryCodePoint) {
  const std::string three = Fffd("***");
  const std::string one_then_x = Fffd("*x");
  int failures = 0;
  std::string prefix;
  for (std::uint32_t code = 0; code <= 0x10FFFFU && failures < 5; ++code) {
    // Past U+FFFF only the first two bytes decide validity: the last two take their extremes.
    const std::uint32_t low = code & 0xFFFU;
    if (code > 0xFFFFU && low != 0 && low != 0x3FU && low != 0xFC0U && low != 0xFFFU) {
      continue;
    }
    const std::string text = Encode(code);
    if (code >= 0xD800U && code <= 0xDFFFU) {
      if (IsValidUtf8(text) || ToValidUtf8(text) != three) {
        ADD_FAILURE() << "surrogate U+" << std::hex << code;
        ++failures;
      }
      continue;
    }
    if (!IsValidUtf8(text) || ToValidUtf8(text) != text) {
      ADD_FAILURE() << "U+" << std::hex << code;
      ++failures;
    }
    for (std::size_t length = 1; length < text.size(); ++length) {
      prefix.assign(text, 0, length);
      prefix += 'x';
      if (IsValidUtf8(prefix) || ToValidUtf8(prefix) != one_then_x) {
        ADD_FAILURE() << "prefix " << length << " of U+" << std::hex << code;
        ++failures;
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

// Two bytes are well-formed exactly when both are ASCII or they are C2..DF then 80..BF.
TEST(Utf8, EveryTwoBytes) {
  int failures = 0;
  for (unsigned a = 0; a < 256; ++a) {
    for (unsigned b = 0; b < 256; ++b) {
      const std::string text{static_cast<char>(a), static_cast<char>(b)};
      const bool expected =
          (a < 0x80 && b < 0x80) || (a >= 0xC2 && a <= 0xDF && b >= 0x80 && b <= 0xBF);
      if (IsValidUtf8(text) != expected && ++failures <= 5) {
        ADD_FAILURE() << std::hex << a << " " << b;
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace trainyard
