#include "server/uri.h"

#include <gtest/gtest.h>

namespace trainyard::server {
namespace {

using Query = std::vector<std::pair<std::string, std::string>>;

struct TargetCase {
  std::string name;
  std::string target;
  bool ok;
  std::string path;
  Query query;
};

class ParseTargetTest : public ::testing::TestWithParam<TargetCase> {};

TEST_P(ParseTargetTest, SplitsPathAndDecodesQuery) {
  const TargetCase& tc = GetParam();
  auto target = ParseTarget(tc.target);
  ASSERT_EQ(target.ok(), tc.ok) << target.status().ToString();
  if (!tc.ok) {
    EXPECT_EQ(target.status().code(), Code::kInvalidArgument);
    return;
  }
  EXPECT_EQ(target->path, tc.path);
  EXPECT_EQ(target->query, tc.query);
}

INSTANTIATE_TEST_SUITE_P(
    Targets, ParseTargetTest,
    ::testing::Values(
        TargetCase{"PathOnly", "/v1/projects/p/jobs", true, "/v1/projects/p/jobs", {}},
        TargetCase{"PathStaysEncoded", "/v1/projects/a%20b", true, "/v1/projects/a%20b", {}},
        TargetCase{
            "Query", "/x?alt=json&pageSize=5", true, "/x", {{"alt", "json"}, {"pageSize", "5"}}},
        TargetCase{"PlusAndEscapes",
                   "/x?filter=state%3DQUEUED+AND+jobId:a*",
                   true,
                   "/x",
                   {{"filter", "state=QUEUED AND jobId:a*"}}},
        TargetCase{"EmptyValueAndEmptyItems", "/x?a&&b=", true, "/x", {{"a", ""}, {"b", ""}}},
        TargetCase{"EmptyQuery", "/x?", true, "/x", {}},
        TargetCase{"AbsoluteForm", "http://h/x", false, "", {}},
        TargetCase{"Asterisk", "*", false, "", {}}, TargetCase{"Empty", "", false, "", {}},
        TargetCase{"BadEscape", "/x?a=%zz", false, "", {}},
        TargetCase{"TruncatedEscape", "/x?a=%4", false, "", {}},
        TargetCase{"NulInQuery", "/x?a=%00", false, "", {}}),
    [](const auto& tc) { return tc.param.name; });

struct SegmentCase {
  std::string name;
  std::string segment;
  bool ok;
  std::string decoded;
};

class DecodePathSegmentTest : public ::testing::TestWithParam<SegmentCase> {};

TEST_P(DecodePathSegmentTest, DecodesOrRefuses) {
  const SegmentCase& tc = GetParam();
  auto decoded = DecodePathSegment(tc.segment, "jobId");
  ASSERT_EQ(decoded.ok(), tc.ok) << decoded.status().ToString();
  if (tc.ok) {
    EXPECT_EQ(*decoded, tc.decoded);
  } else {
    EXPECT_EQ(decoded.status().code(), Code::kInvalidArgument);
    EXPECT_NE(decoded.status().message().find("jobId"), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Segments, DecodePathSegmentTest,
                         ::testing::Values(SegmentCase{"Plain", "job_1", true, "job_1"},
                                           SegmentCase{"Space", "a%20b", true, "a b"},
                                           SegmentCase{"PlusStays", "a+b", true, "a+b"},
                                           SegmentCase{"LowerHex", "%7e", true, "~"},
                                           SegmentCase{"Colon", "a%3Ab", true, "a:b"},
                                           SegmentCase{"EncodedSlash", "..%2Fx", false, ""},
                                           SegmentCase{"Nul", "a%00", false, ""},
                                           SegmentCase{"BadEscape", "a%g1", false, ""},
                                           SegmentCase{"TrailingPercent", "a%", false, ""},
                                           SegmentCase{"DotDot", "..", false, ""},
                                           SegmentCase{"EncodedDotDot", "%2E%2E", false, ""},
                                           SegmentCase{"Dot", ".", false, ""}),
                         [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::server
