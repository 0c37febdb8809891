#include "server/storage_v1_rules.h"

#include <string>

#include <gtest/gtest.h>

namespace trainyard::server {
namespace {

struct RangeCase {
  std::string name;
  std::string header;
  std::int64_t body_size;
  bool ok;
  std::optional<std::int64_t> first;
  std::optional<std::int64_t> total;
};

class ParseContentRangeTest : public ::testing::TestWithParam<RangeCase> {};

TEST_P(ParseContentRangeTest, ReadsEveryFormGcsClientsSend) {
  const RangeCase& tc = GetParam();
  const Result<ChunkRange> range = ParseContentRange(tc.header, tc.body_size);
  ASSERT_EQ(range.ok(), tc.ok) << range.status().ToString();
  if (!tc.ok) {
    EXPECT_EQ(range.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(range.status().violations()[0].field, "Content-Range");
    return;
  }
  EXPECT_EQ(range->first, tc.first);
  EXPECT_EQ(range->length, tc.body_size);
  EXPECT_EQ(range->total, tc.total);
}

constexpr std::optional<std::int64_t> kNone;

INSTANTIATE_TEST_SUITE_P(
    Headers, ParseContentRangeTest,
    ::testing::Values(RangeCase{"Absent", "", 7, true, 0, 7},
                      RangeCase{"ChunkOfKnownSize", "bytes 0-9/42", 10, true, 0, 42},
                      RangeCase{"ChunkOfUnknownSize", "bytes 10-19/*", 10, true, 10, kNone},
                      RangeCase{"WholeStreamKnownSize", "bytes 0-*/42", 42, true, 0, 42},
                      RangeCase{"WholeStreamShortOfItsSize", "bytes 0-*/42", 40, true, 0, 42},
                      RangeCase{"WholeStreamUnknownSize", "bytes 0-*/*", 42, true, 0, 42},
                      RangeCase{"RestOfStreamUnknownSize", "bytes 20-*/*", 22, true, 20, 42},
                      RangeCase{"EmptyStreamUnknownSize", "bytes 0-*/*", 0, true, 0, 0},
                      RangeCase{"Finalise", "bytes */42", 0, true, kNone, 42},
                      RangeCase{"StatusQuery", "bytes */*", 0, true, kNone, kNone},
                      RangeCase{"StatusQueryWithBody", "bytes */*", 3, false, kNone, kNone},
                      RangeCase{"LengthMismatch", "bytes 0-9/42", 9, false, kNone, kNone},
                      RangeCase{"Backwards", "bytes 9-0/42", 10, false, kNone, kNone},
                      RangeCase{"NoUnit", "0-9/42", 10, false, kNone, kNone},
                      RangeCase{"NoTotal", "bytes 0-9", 10, false, kNone, kNone},
                      RangeCase{"NoDash", "bytes 9/42", 1, false, kNone, kNone},
                      RangeCase{"StarFirst", "bytes *-9/42", 10, false, kNone, kNone},
                      RangeCase{"NegativeTotal", "bytes 0-9/-1", 10, false, kNone, kNone},
                      RangeCase{"JunkTotal", "bytes 0-*/4x", 10, false, kNone, kNone}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::server
