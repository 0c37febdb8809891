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

}  // namespace
}  // namespace trainyard::testing
