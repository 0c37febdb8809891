#include <string>

#include <gtest/gtest.h>

#include "plan/cluster_plan.h"

namespace trainyard::plan {
namespace {

struct PathCase {
  std::string name;
  std::string uri;
  std::string mount;
  Code code;             // kOk when mapped
  std::string expected;  // the local path when mapped
};

class LocalPathTest : public ::testing::TestWithParam<PathCase> {};

TEST_P(LocalPathTest, MapsOrRefuses) {
  const PathCase& c = GetParam();
  const Result<std::string> path = LocalPathOf(c.uri, c.mount);
  EXPECT_EQ(path.status().code(), c.code) << path.status().ToString();
  if (path.ok()) {
    EXPECT_EQ(*path, c.expected);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Uris, LocalPathTest,
    ::testing::Values(
        PathCase{"Bucket", "gs://b", "/data/buckets", Code::kOk, "/data/buckets/b"},
        PathCase{"BucketSlash", "gs://b/", "/data/buckets", Code::kOk, "/data/buckets/b"},
        PathCase{"ObjectPrefix", "gs://b/p/q/", "/data/buckets", Code::kOk, "/data/buckets/b/p/q"},
        PathCase{"MountWithSlash", "gs://b/p", "/data/buckets/", Code::kOk, "/data/buckets/b/p"},
        PathCase{"DoubleSlash", "gs://b//p", "/m", Code::kOk, "/m/b/p"},
        PathCase{"DotsInsideNames", "gs://b.c/p..q/.r", "/m", Code::kOk, "/m/b.c/p..q/.r"},
        PathCase{"RootMount", "gs://b/p", "/", Code::kOk, "/b/p"},
        PathCase{"LocalPathAsIs", "/tmp/jd/../x", "/m", Code::kOk, "/tmp/jd/../x"},
        PathCase{"RelativeAsIs", "out", "", Code::kOk, "out"},
        PathCase{"NoBucket", "gs://", "/m", Code::kInvalidArgument, ""},
        PathCase{"EmptyBucket", "gs:///p", "/m", Code::kInvalidArgument, ""},
        PathCase{"DotDot", "gs://b/p/../../etc", "/m", Code::kInvalidArgument, ""},
        PathCase{"DotDotBucket", "gs://../x", "/m", Code::kInvalidArgument, ""},
        PathCase{"Dot", "gs://b/./p", "/m", Code::kInvalidArgument, ""},
        PathCase{"Nul", std::string("gs://b/p\0q", 10), "/m", Code::kInvalidArgument, ""},
        PathCase{"NoMount", "gs://b/p", "", Code::kFailedPrecondition, ""}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::plan
