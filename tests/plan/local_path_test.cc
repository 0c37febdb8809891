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

struct SplitCase {
  std::string name;
  std::string uri;
  Code code;  // kOk when split
  std::string bucket;
  std::string path;
};

class SplitGcsUriTest : public ::testing::TestWithParam<SplitCase> {};

TEST_P(SplitGcsUriTest, SplitsOrRefuses) {
  const SplitCase& c = GetParam();
  const Result<GcsPath> split = SplitGcsUri(c.uri);
  EXPECT_EQ(split.status().code(), c.code) << split.status().ToString();
  if (split.ok()) {
    EXPECT_EQ(split->bucket, c.bucket);
    EXPECT_EQ(split->path, c.path);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Uris, SplitGcsUriTest,
    ::testing::Values(SplitCase{"Bucket", "gs://b", Code::kOk, "b", ""},
                      SplitCase{"BucketSlash", "gs://b/", Code::kOk, "b", ""},
                      SplitCase{"Object", "gs://b/p/q.tar.gz", Code::kOk, "b", "p/q.tar.gz"},
                      SplitCase{"EmptySegments", "gs://b//p///q/", Code::kOk, "b", "p/q"},
                      SplitCase{"LocalPath", "/tmp/x", Code::kInvalidArgument, "", ""},
                      SplitCase{"NoBucket", "gs://", Code::kInvalidArgument, "", ""},
                      SplitCase{"EmptyBucket", "gs:///p", Code::kInvalidArgument, "", ""},
                      SplitCase{"DotDot", "gs://b/p/../q", Code::kInvalidArgument, "", ""},
                      SplitCase{"Nul", std::string("gs://b/p\0q", 10), Code::kInvalidArgument, "",
                                ""}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::plan
