// The storage v1 resources as GCS shapes them (api/storage/json.h): a bucket's projectNumber.
#include "api/storage/json.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trainyard::server {
namespace {

std::string ProjectNumberOf(std::string project) {
  const store::BucketInfo bucket{.name = "bkt", .project = std::move(project)};
  return nlohmann::json::parse(BucketJson(bucket, "http://127.0.0.1"))["projectNumber"];
}

// A project id's stand-in number is ml v1 getConfig's (access::ProjectNumber), pinned: clients
// may have stored it. A project named by its number keeps it.
TEST(StorageBucketJson, ReportsTheProjectByItsNumber) {
  EXPECT_EQ(ProjectNumberOf("my-proj"), "253589482369");
  EXPECT_EQ(ProjectNumberOf("p"), "992253321583");
  EXPECT_EQ(ProjectNumberOf("123456789012"), "123456789012");
  EXPECT_EQ(ProjectNumberOf("0"), "0");
  EXPECT_EQ(ProjectNumberOf(""), "839346656037");
}

}  // namespace
}  // namespace trainyard::server
