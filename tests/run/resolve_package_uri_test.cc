#include <string>

#include <gtest/gtest.h>

#include "run/local/package_files.h"

namespace trainyard::run::local {
namespace {

struct UriCase {
  std::string name;
  std::string uri;
  std::string gcs_mount;
  std::string path;  // "" when refused
};

class ResolvePackageUriTest : public ::testing::TestWithParam<UriCase> {};

TEST_P(ResolvePackageUriTest, MapsToTheMountOrRefusesNamingTheUri) {
  const UriCase& tc = GetParam();
  Result<std::string> path = ResolvePackageUri(tc.uri, tc.gcs_mount);
  if (tc.path.empty()) {
    ASSERT_FALSE(path.ok()) << *path;
    EXPECT_EQ(path.status().code(), Code::kFailedPrecondition);
    EXPECT_NE(path.status().message().find(tc.uri), std::string::npos) << path.status().message();
  } else {
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    EXPECT_EQ(*path, tc.path);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ResolvePackageUriTest,
    ::testing::Values(
        UriCase{"GcsObject", "gs://b/p.tar.gz", "/data/gcs", "/data/gcs/b/p.tar.gz"},
        UriCase{"GcsNested", "gs://b/staging/x/p-1.0.tar.gz", "/m", "/m/b/staging/x/p-1.0.tar.gz"},
        UriCase{"AbsolutePath", "/opt/pkgs/p.whl", "/m", "/opt/pkgs/p.whl"},
        UriCase{"AbsolutePathWithoutMount", "/opt/pkgs/p.whl", "", "/opt/pkgs/p.whl"},
        UriCase{"RelativePath", "pkgs/p.tar.gz", "/m", ""},
        UriCase{"DotRelativePath", "./p.tar.gz", "/m", ""},
        UriCase{"Http", "http://example.com/p.tar.gz", "/m", ""},
        UriCase{"GcsNoMount", "gs://b/p.tar.gz", "", ""},
        UriCase{"GcsEmptyBucket", "gs:///p.tar.gz", "/m", ""},
        UriCase{"GcsNoObject", "gs://b", "/m", ""}, UriCase{"GcsEmptyObject", "gs://b/", "/m", ""},
        UriCase{"GcsDotDotObject", "gs://b/../other/p.tar.gz", "/m", ""},
        UriCase{"GcsDotDotInside", "gs://b/a/../../x", "/m", ""},
        UriCase{"GcsDotSegment", "gs://b/a/./p.tar.gz", "/m", ""},
        UriCase{"GcsDotDotBucket", "gs://../etc/passwd", "/m", ""},
        UriCase{"GcsTrailingDotDot", "gs://b/a/..", "/m", ""}, UriCase{"Empty", "", "/m", ""}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::run::local
