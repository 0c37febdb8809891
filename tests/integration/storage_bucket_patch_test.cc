// buckets.patch and buckets.update over real HTTP (issue #36; the Node.js client's
// bucket.setMetadata / setLabels, `gcloud storage buckets update --update-labels`): labels merged
// as GCS merges them (null removes a key), the metageneration and etag raised by each change,
// ifMetagenerationMatch and ifMetagenerationNotMatch on get, patch and delete, and bad input
// refused, changing nothing.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/storage_fixture.h"

namespace trainyard::testing {
namespace {

class BucketPatchTest : public StorageApiTest {
 protected:
  ClientResponse Patch(const std::string& path, const std::string& body) {
    return client_.Send("PATCH", path, body, {{"Content-Type", "application/json"}});
  }

  nlohmann::json Bucket() { return Body(client_.Get("/storage/v1/b/bkt")); }
};

TEST_F(BucketPatchTest, LabelsMergeAndTheMetagenerationGoesUp) {
  const nlohmann::json before = Bucket();
  EXPECT_EQ(before["metageneration"], "1");
  EXPECT_EQ(before["etag"], "CAE=");
  EXPECT_FALSE(before.contains("labels"));

  const ClientResponse first =
      Patch("/storage/v1/b/bkt?ifMetagenerationMatch=1", R"({"labels":{"team":"ml","env":"dev"}})");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(Body(first)["labels"], (nlohmann::json{{"env", "dev"}, {"team", "ml"}}));
  EXPECT_EQ(Body(first)["metageneration"], "2");
  EXPECT_EQ(Body(first)["etag"], "CAI=");
  EXPECT_EQ(Body(first)["timeCreated"], before["timeCreated"]);

  // null removes a key, others stay; at the host's root too (the Node.js client's emulator path).
  const ClientResponse second = Patch("/b/bkt", R"({"labels":{"env":null,"stage":"raw"}})");
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(Body(second)["labels"], (nlohmann::json{{"stage", "raw"}, {"team", "ml"}}));
  EXPECT_EQ(Body(second)["metageneration"], "3");
  EXPECT_EQ(Bucket()["labels"], Body(second)["labels"]);
  EXPECT_EQ(Body(client_.Get("/storage/v1/b?project=proj"))["items"][0]["labels"],
            Body(second)["labels"]);

  // The whole resource sent back, as gcloud does, changes only the labels; null clears them all.
  nlohmann::json resource = Bucket();
  resource["labels"] = nullptr;
  const ClientResponse cleared = Patch("/storage/v1/b/bkt", resource.dump());
  ASSERT_EQ(cleared.status, 200) << cleared.body;
  EXPECT_FALSE(Body(cleared).contains("labels"));
  EXPECT_EQ(Body(cleared)["metageneration"], "4");
}

// buckets.insert keeps the labels it is given (they were dropped silently), after the same
// checks: a bad one creates nothing.
TEST_F(BucketPatchTest, ABucketIsCreatedWithItsLabels) {
  const ClientResponse created =
      client_.Post("/storage/v1/b?project=proj", R"({"name":"lab","labels":{"team":"ml"}})");
  ASSERT_EQ(created.status, 200) << created.body;
  EXPECT_EQ(Body(created)["labels"], (nlohmann::json{{"team", "ml"}}));
  EXPECT_EQ(Body(client_.Get("/storage/v1/b/lab"))["labels"], (nlohmann::json{{"team", "ml"}}));
  const ClientResponse bad =
      client_.Post("/storage/v1/b?project=proj", R"({"name":"lab-2","labels":{"T":"x"}})");
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(client_.Get("/storage/v1/b/lab-2").status, 404);
}

TEST_F(BucketPatchTest, MetagenerationPreconditionsHoldOrAnswer412) {
  ASSERT_EQ(Patch("/storage/v1/b/bkt", R"({"labels":{"a":"1"}})").status, 200);  // now 2
  const ClientResponse stale =
      Patch("/storage/v1/b/bkt?ifMetagenerationMatch=1", R"({"labels":{"a":"2"}})");
  ASSERT_EQ(stale.status, 412) << stale.body;
  EXPECT_EQ(GcsError(stale, "conditionNotMet")["code"], 412);
  EXPECT_EQ(Patch("/storage/v1/b/bkt?ifMetagenerationNotMatch=2", R"({"labels":{"a":"2"}})").status,
            412);
  EXPECT_EQ(Bucket()["labels"], (nlohmann::json{{"a", "1"}}));
  EXPECT_EQ(Bucket()["metageneration"], "2");
  // A read answers 304 for a *NotMatch that fails, 412 for a Match; a delete 412.
  EXPECT_EQ(client_.Get("/storage/v1/b/bkt?ifMetagenerationNotMatch=2").status, 304);
  EXPECT_EQ(client_.Get("/storage/v1/b/bkt?ifMetagenerationMatch=1").status, 412);
  EXPECT_EQ(client_.Get("/storage/v1/b/bkt?ifMetagenerationMatch=2").status, 200);
  EXPECT_EQ(client_.Send("DELETE", "/storage/v1/b/bkt?ifMetagenerationMatch=1", "").status, 412);
  EXPECT_EQ(Bucket()["name"], "bkt");
  EXPECT_EQ(client_.Send("DELETE", "/storage/v1/b/bkt?ifMetagenerationMatch=2", "").status, 204);
}

TEST_F(BucketPatchTest, BadInputIsRefusedNamingItAndChangesNothing) {
  ASSERT_EQ(Patch("/storage/v1/b/bkt", R"({"labels":{"a":"1"}})").status, 200);
  struct Case {
    std::string body;
    std::string location;
  };
  for (const Case& c :
       {Case{R"({"labels":{"Bad Key":"x"}})", "labels"},
        Case{R"({"labels":{"k":"UPPER"}})", "labels"}, Case{R"({"labels":{"k":7}})", "labels.k"},
        Case{R"({"versioning":{"enabled":true}})", "versioning"},
        Case{R"({"location":"EU"})", "location"}, Case{"nope", "body"}}) {
    const ClientResponse refused = Patch("/storage/v1/b/bkt", c.body);
    ASSERT_EQ(refused.status, 400) << c.body << ": " << refused.body;
    EXPECT_EQ(GcsError(refused, "invalid")["errors"][0]["location"], c.location) << c.body;
  }
  EXPECT_EQ(Patch("/storage/v1/b/bkt?ifMetagenerationMatch=x", "{}").status, 400);
  EXPECT_EQ(Patch("/storage/v1/b/bkt?ifGenerationMatch=1", "{}").status, 400);
  EXPECT_EQ(Bucket()["labels"], (nlohmann::json{{"a", "1"}}));
  EXPECT_EQ(Bucket()["metageneration"], "2");
  EXPECT_EQ(Patch("/storage/v1/b/none", R"({"labels":{}})").status, 404);
}

// buckets.update (PUT) replaces every writable field: what the body leaves out is reset, with the
// same preconditions and metageneration bump as a patch; cors and website are kept and served.
TEST_F(BucketPatchTest, UpdateReplacesTheWritableFields) {
  const ClientResponse patched = Patch(
      "/storage/v1/b/bkt", R"({"labels":{"team":"ml"},"website":{"mainPageSuffix":"index.html"}})");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(Body(patched)["website"], (nlohmann::json{{"mainPageSuffix", "index.html"}}));
  const auto put = [&](const std::string& path, const std::string& body) {
    return client_.Send("PUT", path, body, {{"Content-Type", "application/json"}});
  };
  const nlohmann::json cors = nlohmann::json::parse(R"([{"origin":["*"],"method":["GET"]}])");
  const ClientResponse replaced = put("/storage/v1/b/bkt?ifMetagenerationMatch=2",
                                      nlohmann::json{{"name", "bkt"}, {"cors", cors}}.dump());
  ASSERT_EQ(replaced.status, 200) << replaced.body;
  EXPECT_EQ(Body(replaced)["cors"], cors);
  EXPECT_FALSE(Body(replaced).contains("labels"));
  EXPECT_FALSE(Body(replaced).contains("website"));
  EXPECT_EQ(Body(replaced)["metageneration"], "3");
  EXPECT_EQ(Bucket()["cors"], cors);

  // Refused: a stale metageneration, a field this server would have to act on; nothing changes.
  EXPECT_EQ(put("/b/bkt?ifMetagenerationMatch=2", R"({"labels":{"a":"1"}})").status, 412);
  const ClientResponse versioned = put("/storage/v1/b/bkt", R"({"versioning":{"enabled":true}})");
  ASSERT_EQ(versioned.status, 400) << versioned.body;
  EXPECT_EQ(GcsError(versioned, "invalid")["errors"][0]["location"], "versioning");
  EXPECT_EQ(Bucket()["metageneration"], "3");
  EXPECT_EQ(Bucket()["cors"], cors);
  EXPECT_EQ(put("/storage/v1/b/none", "{}").status, 404);

  // The resource as served, sent back with a label, keeps the cors and adds the label.
  nlohmann::json resource = Bucket();
  resource["labels"] = {{"env", "dev"}};
  const ClientResponse round_trip = put("/b/bkt", resource.dump());
  ASSERT_EQ(round_trip.status, 200) << round_trip.body;
  EXPECT_EQ(Body(round_trip)["labels"], (nlohmann::json{{"env", "dev"}}));
  EXPECT_EQ(Body(round_trip)["cors"], cors);
}

}  // namespace
}  // namespace trainyard::testing
