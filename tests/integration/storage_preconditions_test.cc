// GCS's request preconditions over real HTTP (ifGenerationMatch, ifGenerationNotMatch,
// ifMetagenerationMatch, ifMetagenerationNotMatch, and a rewrite's ifSource…): each object method
// evaluates them, refusing with 412 conditionNotMet (304 for a read's *NotMatch) and changing
// nothing.
#include <string>

#include <gtest/gtest.h>

#include "integration/storage_fixture.h"

namespace trainyard::testing {
namespace {

class PreconditionTest : public StorageApiTest {
 protected:
  // Uploads `data` as "obj" and returns its generation.
  std::string Put(std::string_view data) {
    const ClientResponse put = UploadMedia("obj", data);
    EXPECT_EQ(put.status, 200) << put.body;
    return Body(put)["generation"].get<std::string>();
  }

  // Checks the 412 of `response` as GCS words it.
  static void ExpectConditionNotMet(const ClientResponse& response) {
    ASSERT_EQ(response.status, 412) << response.body;
    EXPECT_EQ(GcsError(response, "conditionNotMet")["message"],
              "At least one of the pre-conditions you specified did not hold.");
  }
};

TEST_F(PreconditionTest, GenerationZeroWritesOnlyAnAbsentObject) {
  const std::string target = "/upload/storage/v1/b/bkt/o?uploadType=media&name=obj";
  const ClientResponse first = client_.Send("POST", target + "&ifGenerationMatch=0", "one");
  ASSERT_EQ(first.status, 200) << first.body;
  ExpectConditionNotMet(client_.Send("POST", target + "&ifGenerationMatch=0", "two"));
  ExpectConditionNotMet(client_.Send("POST",
                                     "/upload/storage/v1/b/bkt/o?uploadType=resumable"
                                     "&name=obj&ifGenerationMatch=0",
                                     ""));
  EXPECT_EQ(Download("obj").body, "one");
}

TEST_F(PreconditionTest, WritesMatchTheLiveGeneration) {
  const std::string generation = Put("one");
  const ClientResponse stale = client_.Send(
      "POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=obj&ifGenerationMatch=1", "two");
  ExpectConditionNotMet(stale);
  const ClientResponse multipart = client_.Send(
      "POST", "/upload/storage/v1/b/bkt/o?uploadType=multipart&ifGenerationMatch=" + generation,
      "--b\n\n{\"name\":\"obj\"}\n--b\n\nthree\n--b--\n",
      {{"Content-Type", "multipart/related; boundary=b"}});
  ASSERT_EQ(multipart.status, 200) << multipart.body;
  EXPECT_EQ(Download("obj").body, "three");
  ExpectConditionNotMet(client_.Send(
      "POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=obj&ifMetagenerationMatch=2", "x"));
  ExpectConditionNotMet(client_.Send(
      "POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=new&ifGenerationNotMatch=0", "x"));
  EXPECT_EQ(client_.Get(ObjectPath("new")).status, 404);
}

TEST_F(PreconditionTest, ReadsFailWith412OrAreNotModified) {
  const std::string generation = Put("data");
  const std::string path = ObjectPath("obj");
  EXPECT_EQ(client_.Get(path + "?ifGenerationMatch=" + generation).status, 200);
  EXPECT_EQ(client_.Get(path + "?alt=media&ifMetagenerationMatch=1").body, "data");
  ExpectConditionNotMet(client_.Get(path + "?ifGenerationMatch=1"));
  ExpectConditionNotMet(client_.Get(path + "?alt=media&ifGenerationMatch=1"));
  EXPECT_EQ(client_.Get(path + "?ifGenerationNotMatch=" + generation).status, 304);
  EXPECT_EQ(client_.Get(path + "?alt=media&ifMetagenerationNotMatch=1").status, 304);
  const ClientResponse bad = client_.Get(path + "?ifGenerationMatch=x");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(GcsError(bad, "invalid")["errors"][0]["location"], "ifGenerationMatch");
}

TEST_F(PreconditionTest, DeletesOnlyTheMatchingGeneration) {
  const std::string generation = Put("data");
  ExpectConditionNotMet(client_.Send("DELETE", ObjectPath("obj") + "?ifGenerationMatch=1"));
  EXPECT_EQ(Download("obj").body, "data");
  EXPECT_EQ(client_.Send("DELETE", ObjectPath("obj") + "?ifGenerationMatch=" + generation).status,
            204);
  EXPECT_EQ(client_.Get(ObjectPath("obj")).status, 404);
}

TEST_F(PreconditionTest, RewritesCheckSourceAndDestination) {
  const std::string generation = Put("data");
  ASSERT_EQ(UploadMedia("dest", "old").status, 200);
  const std::string rewrite = "/storage/v1/b/bkt/o/obj/rewriteTo/b/bkt/o/dest?";
  ExpectConditionNotMet(client_.Post(rewrite + "ifGenerationMatch=0", "{}"));
  ExpectConditionNotMet(client_.Post(rewrite + "ifSourceGenerationMatch=1", "{}"));
  EXPECT_EQ(Download("dest").body, "old");
  const ClientResponse copied = client_.Post(
      rewrite + "ifSourceGenerationMatch=" + generation + "&ifSourceMetagenerationMatch=1", "{}");
  ASSERT_EQ(copied.status, 200) << copied.body;
  EXPECT_EQ(Download("dest").body, "data");
}

}  // namespace
}  // namespace trainyard::testing
