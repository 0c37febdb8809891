// The object fields a writer sets that GCS serves as a download's headers (cacheControl,
// contentDisposition, contentEncoding, contentLanguage) over real HTTP: kept from every upload
// form, returned in the object resource, and sent with the stored bytes.
#include <string>

#include <gtest/gtest.h>

#include "integration/storage_fixture.h"

namespace trainyard::testing {
namespace {

// Stands for gzip bytes: served as stored, never decoded by the server.
const std::string kStored("\x1f\x8b\x08\x00stored", 10);

const nlohmann::json kFields = {{"cacheControl", "public, max-age=60"},
                                {"contentDisposition", "attachment; filename=\"a.txt\""},
                                {"contentEncoding", "gzip"},
                                {"contentLanguage", "en"}};

class ObjectFieldsTest : public StorageApiTest {
 protected:
  // Checks that `object` (a resource) and the download of `name` carry every field of `fields`.
  void ExpectFields(const nlohmann::json& object, std::string_view name,
                    const nlohmann::json& fields) {
    for (const auto& [key, value] : fields.items()) {
      EXPECT_EQ(object[key], value) << key;
      EXPECT_EQ(Body(client_.Get(ObjectPath(name)))[key], value) << key;
    }
    const ClientResponse download = Download(name);
    EXPECT_TRUE(download.body == kStored) << download.body;
    const std::vector<std::pair<std::string, std::string>> headers = {
        {"cacheControl", "cache-control"},
        {"contentDisposition", "content-disposition"},
        {"contentEncoding", "content-encoding"},
        {"contentLanguage", "content-language"}};
    for (const auto& [field, header] : headers) {
      EXPECT_EQ(download.Header(header), fields.value(field, "")) << header;
    }
    EXPECT_EQ(download.Header("x-goog-stored-content-encoding"),
              fields.value("contentEncoding", "identity"));
  }
};

TEST_F(ObjectFieldsTest, MultipartKeepsThemAll) {
  nlohmann::json metadata = kFields;
  metadata["name"] = "a.txt.gz";
  const ClientResponse put =
      client_.Send("POST", "/upload/storage/v1/b/bkt/o?uploadType=multipart",
                   "--b\r\nContent-Type: application/json\r\n\r\n" + metadata.dump() +
                       "\r\n--b\r\nContent-Type: text/plain\r\n\r\n" + kStored + "\r\n--b--\r\n",
                   {{"Content-Type", "multipart/related; boundary=b"}});
  ASSERT_EQ(put.status, 200) << put.body;
  ExpectFields(Body(put), "a.txt.gz", kFields);
}

TEST_F(ObjectFieldsTest, MediaTakesTheContentEncodingParameter) {
  const ClientResponse put = client_.Send(
      "POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=m.gz&contentEncoding=gzip", kStored,
      {{"Content-Type", "text/plain"}});
  ASSERT_EQ(put.status, 200) << put.body;
  ExpectFields(Body(put), "m.gz", {{"contentEncoding", "gzip"}});
}

TEST_F(ObjectFieldsTest, ResumableKeepsThemUntilTheObjectIsWritten) {
  const ClientResponse started =
      client_.Send("POST", "/upload/storage/v1/b/bkt/o?uploadType=resumable&name=r.gz",
                   kFields.dump(), {{"Content-Type", "application/json"}});
  ASSERT_EQ(started.status, 200) << started.body;
  const std::string location = started.Header("location");
  const ClientResponse put =
      client_.Send("PUT", location.substr(location.find("/upload/")), kStored,
                   {{"Content-Range", "bytes 0-*/*"}, {"Content-Type", "text/plain"}});
  ASSERT_EQ(put.status, 200) << put.body;
  ExpectFields(Body(put), "r.gz", kFields);
}

TEST_F(ObjectFieldsTest, ObjectsWithoutThemHaveNone) {
  const ClientResponse put = UploadMedia("plain", kStored);
  ASSERT_EQ(put.status, 200) << put.body;
  for (const auto& [key, value] : kFields.items()) {
    EXPECT_FALSE(Body(put).contains(key)) << key;
  }
  ExpectFields(Body(put), "plain", nlohmann::json::object());
}

// objects.patch (the Node.js client's setMetadata, gsutil setmeta): the fields change, the bytes
// and the generation stay, the metageneration goes up, and preconditions see it.
TEST_F(ObjectFieldsTest, PatchChangesThemAndRaisesTheMetageneration) {
  const ClientResponse put = UploadMedia("p.gz", kStored);
  ASSERT_EQ(put.status, 200) << put.body;
  const std::string generation = Body(put)["generation"];
  EXPECT_EQ(Body(put)["metageneration"], "1");
  nlohmann::json change = kFields;
  change["contentType"] = "text/csv";
  change["metadata"] = {{"owner", "ana"}, {"stage", "raw"}};
  const ClientResponse patched =
      client_.Send("PATCH", ObjectPath("p.gz") + "?ifMetagenerationMatch=1", change.dump(),
                   {{"Content-Type", "application/json"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  const nlohmann::json object = Body(patched);
  EXPECT_EQ(object["metageneration"], "2");
  EXPECT_EQ(object["generation"], generation);
  EXPECT_EQ(object["contentType"], "text/csv");
  EXPECT_EQ(object["metadata"], change["metadata"]);
  ExpectFields(object, "p.gz", kFields);
  EXPECT_EQ(Download("p.gz").Header("x-goog-metageneration"), "2");

  // The same precondition again fails: the metageneration moved on.
  const ClientResponse stale =
      client_.Send("PATCH", ObjectPath("p.gz") + "?ifMetagenerationMatch=1",
                   R"({"contentType":"a/b"})", {{"Content-Type", "application/json"}});
  EXPECT_EQ(stale.status, 412);
  // A key set to null goes, others stay; null clears a field (at the host's root too).
  const ClientResponse second =
      client_.Send("PATCH", "/b/bkt/o/p.gz", R"({"metadata":{"stage":null},"cacheControl":null})",
                   {{"Content-Type", "application/json"}});
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(Body(second)["metadata"], (nlohmann::json{{"owner", "ana"}}));
  EXPECT_FALSE(Body(second).contains("cacheControl"));
  EXPECT_EQ(Body(second)["metageneration"], "3");

  // A field this server does not keep is refused, naming it, and changes nothing.
  const ClientResponse hold =
      client_.Send("PATCH", ObjectPath("p.gz"), R"({"contentType":"x/y","temporaryHold":true})",
                   {{"Content-Type", "application/json"}});
  EXPECT_EQ(hold.status, 400);
  EXPECT_EQ(GcsError(hold, "invalid")["errors"][0]["location"], "temporaryHold");
  EXPECT_EQ(Body(client_.Get(ObjectPath("p.gz")))["contentType"], "text/csv");
  EXPECT_EQ(Body(client_.Get(ObjectPath("p.gz")))["metageneration"], "3");
  // A new write starts a generation at metageneration 1.
  const ClientResponse rewritten = UploadMedia("p.gz", kStored);
  EXPECT_EQ(Body(rewritten)["metageneration"], "1");
  EXPECT_EQ(client_.Send("PATCH", ObjectPath("none"), "{}").status, 404);
}

}  // namespace
}  // namespace trainyard::testing
