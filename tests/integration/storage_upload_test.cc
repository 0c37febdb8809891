// Uploads through the storage v1 API over real HTTP: multipart bodies in the forms clients send
// them, media uploads, resumable sessions in several chunks, and the upload size limits.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "integration/storage_fixture.h"

namespace trainyard::testing {
namespace {

// The bytes every upload test sends: line ends and bytes that could confuse a parser.
constexpr char kPayloadBytes[] = "line one\r\nline two\n\n--not-a-boundary\0\xff end";
const std::string kPayload(kPayloadBytes, sizeof(kPayloadBytes) - 1);  // 42 bytes, NUL included

struct MultipartCase {
  std::string name;
  std::string line_end;        // between headers and parts: "\n" (gcloud) or "\r\n"
  std::string boundary_param;  // as written in Content-Type
  std::string boundary;        // the boundary itself
  bool name_in_query;
};

class MultipartTest : public StorageApiTest, public ::testing::WithParamInterface<MultipartCase> {};

TEST_P(MultipartTest, StoresTheMediaPartExactly) {
  const MultipartCase& c = GetParam();
  const std::string& nl = c.line_end;
  nlohmann::json metadata = {{"contentType", "application/x-tar"}, {"metadata", {{"k", "v"}}}};
  if (!c.name_in_query) {
    metadata["name"] = "pkg/trainer-0.1.tar.gz";
  }
  const std::string body =
      "--" + c.boundary + nl + "Content-Type: application/json; charset=UTF-8" + nl + nl +
      metadata.dump() + nl + "--" + c.boundary + nl + "Content-Type: application/octet-stream" +
      nl + nl + kPayload + nl + "--" + c.boundary + "--" + nl;
  const std::string target =
      std::string("/upload/storage/v1/b/bkt/o?uploadType=multipart&alt=json") +
      (c.name_in_query ? "&name=pkg%2Ftrainer-0.1.tar.gz" : "");
  const ClientResponse response = client_.Send(
      "POST", target, body, {{"Content-Type", "multipart/related; boundary=" + c.boundary_param}});
  ASSERT_EQ(response.status, 200) << response.body;
  const nlohmann::json object = Body(response);
  EXPECT_EQ(object["name"], "pkg/trainer-0.1.tar.gz");
  EXPECT_EQ(object["size"], std::to_string(kPayload.size()));
  EXPECT_EQ(object["contentType"], "application/x-tar");
  EXPECT_EQ(object["metadata"]["k"], "v");
  const ClientResponse downloaded = Download("pkg/trainer-0.1.tar.gz");
  EXPECT_TRUE(downloaded.body == kPayload) << downloaded.body;
  EXPECT_EQ(downloaded.Header("content-type"), "application/x-tar");
}

INSTANTIATE_TEST_SUITE_P(
    Forms, MultipartTest,
    ::testing::Values(MultipartCase{"GcloudLfSingleQuoted", "\n", "'===============123=='",
                                    "===============123==", true},
                      MultipartCase{"CrlfDoubleQuoted", "\r\n", "\"b-42\"", "b-42", true},
                      MultipartCase{"CrlfBare", "\r\n", "xyz123", "xyz123", false},
                      MultipartCase{"LfBareNameInMetadata", "\n", "abc; charset=x", "abc", false}),
    [](const auto& tc) { return tc.param.name; });

struct BadMultipart {
  std::string name;
  std::string content_type;
  std::string body;
};

class BadMultipartTest : public StorageApiTest,
                         public ::testing::WithParamInterface<BadMultipart> {};

TEST_P(BadMultipartTest, IsRefusedAndWritesNothing) {
  const std::vector<std::string> before = Tree();
  const ClientResponse response =
      client_.Send("POST", "/upload/storage/v1/b/bkt/o?uploadType=multipart", GetParam().body,
                   {{"Content-Type", GetParam().content_type}});
  EXPECT_EQ(response.status, 400) << response.body;
  GcsError(response, "invalid");
  EXPECT_EQ(Tree(), before);
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, BadMultipartTest,
    ::testing::Values(
        BadMultipart{"NotMultipart", "application/json", "{}"},
        BadMultipart{"NoBoundary", "multipart/related", "--b\n\n{}\n--b\n\nx\n--b--\n"},
        BadMultipart{"NoClosingBoundary", "multipart/related; boundary=b", "--b\n\n{}\n--b\n\nxyz"},
        BadMultipart{"OnlyMetadata", "multipart/related; boundary=b", "--b\n\n{}\n--b--\n"},
        BadMultipart{"BadMetadata", "multipart/related; boundary=b",
                     "--b\n\n[1]\n--b\n\nx\n--b--\n"},
        BadMultipart{"EscapingName", "multipart/related; boundary=b",
                     "--b\n\n{\"name\":\"../../x\"}\n--b\n\nx\n--b--\n"}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(StorageApiTest, MediaUploadTakesTheContentType) {
  const ClientResponse response =
      client_.Send("POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=notes.txt", kPayload,
                   {{"Content-Type", "text/plain"}});
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(Body(response)["contentType"], "text/plain");
  EXPECT_TRUE(Download("notes.txt").body == kPayload);
  const ClientResponse no_name =
      client_.Send("POST", "/upload/storage/v1/b/bkt/o?uploadType=media", "x");
  EXPECT_EQ(no_name.status, 400);
  EXPECT_EQ(GcsError(no_name, "invalid")["errors"][0]["location"], "name");
}

TEST_F(StorageApiTest, ResumableUploadInSeveralChunks) {
  // The form docs/reference/ai-platform-training.md §11 shows gcloud using; the session URL is
  // absolute, on our address.
  const ClientResponse started = client_.Send(
      "POST",
      "/resumable/upload/storage/v1/b/bkt/o?alt=json&name=big%2Fmodel.bin&uploadType=resumable",
      R"({"contentType":"application/x-model"})", {{"X-Upload-Content-Length", "42"}});
  ASSERT_EQ(started.status, 200) << started.body;
  const std::string location = started.Header("location");
  const std::string base = "http://127.0.0.1:" + std::to_string(server_.port());
  ASSERT_TRUE(location.starts_with(base + "/upload/storage/v1/b/bkt/o?")) << location;
  const std::string session = location.substr(base.size());

  const ClientResponse first = client_.Send(
      "PUT", session, kPayload.substr(0, 20),
      {{"Content-Range", "bytes 0-19/*"}, {"Content-Type", "application/octet-stream"}});
  EXPECT_EQ(first.status, 308) << first.body;
  EXPECT_EQ(first.Header("range"), "bytes=0-19");
  const ClientResponse second = client_.Send(
      "PUT", session, kPayload.substr(20, 15),
      {{"Content-Range", "bytes 20-34/*"}, {"Content-Type", "application/octet-stream"}});
  EXPECT_EQ(second.status, 308);
  EXPECT_EQ(second.Header("range"), "bytes=0-34");
  EXPECT_EQ(client_.Get(ObjectPath("big/model.bin")).status, 404);  // not yet

  const ClientResponse status = client_.Send("PUT", session, "", {{"Content-Range", "bytes */*"}});
  EXPECT_EQ(status.status, 308);
  EXPECT_EQ(status.Header("range"), "bytes=0-34");
  const ClientResponse gap = client_.Send(
      "PUT", session, "zz", {{"Content-Range", "bytes 38-39/42"}, {"Content-Type", "text/plain"}});
  EXPECT_EQ(gap.status, 400);

  const ClientResponse last = client_.Send(
      "PUT", session, kPayload.substr(35),
      {{"Content-Range", "bytes 35-41/42"}, {"Content-Type", "application/octet-stream"}});
  ASSERT_EQ(last.status, 200) << last.body;
  const nlohmann::json object = Body(last);
  EXPECT_EQ(object["name"], "big/model.bin");
  EXPECT_EQ(object["size"], "42");
  EXPECT_EQ(object["contentType"], "application/x-model");
  EXPECT_TRUE(Download("big/model.bin").body == kPayload);

  // Only the session's file in the scratch dir is left of it: the chunks' spools are gone.
  for (const std::string& path : Tree()) {
    EXPECT_FALSE(path.starts_with(".uploads/req-")) << path;
  }
}

// One PUT carrying the whole stream, as the Node client's default upload sends it.
class WholeStreamTest : public StorageApiTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(WholeStreamTest, WritesTheObjectInOnePut) {
  const std::string session = StartSession("stream.bin");
  const ClientResponse put =
      client_.Send("PUT", session, kPayload,
                   {{"Content-Range", GetParam()}, {"Content-Type", "application/octet-stream"}});
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(Body(put)["size"], std::to_string(kPayload.size()));
  EXPECT_TRUE(Download("stream.bin").body == kPayload);
  // A retry after the answer was lost finds the object written.
  const ClientResponse status = client_.Send("PUT", session, "", {{"Content-Range", "bytes */*"}});
  EXPECT_EQ(status.status, 200) << status.body;
}

INSTANTIATE_TEST_SUITE_P(ContentRanges, WholeStreamTest,
                         ::testing::Values("bytes 0-*/*", "bytes 0-*/42", "bytes 0-41/42"),
                         [](const auto& tc) {
                           return tc.param == "bytes 0-*/*"    ? std::string("SizeUnknown")
                                  : tc.param == "bytes 0-*/42" ? std::string("SizeKnown")
                                                               : std::string("ExplicitRange");
                         });

TEST_F(StorageApiTest, ResumableStreamIsFinalisedByItsSize) {
  const std::string session = StartSession("streamed.bin");
  const ClientResponse chunk = client_.Send(
      "PUT", session, kPayload,
      {{"Content-Range", "bytes 0-41/*"}, {"Content-Type", "application/octet-stream"}});
  EXPECT_EQ(chunk.status, 308) << chunk.body;
  EXPECT_EQ(chunk.Header("range"), "bytes=0-41");
  const ClientResponse short_total =
      client_.Send("PUT", session, "", {{"Content-Range", "bytes */40"}});
  EXPECT_EQ(short_total.status, 400) << short_total.body;
  const ClientResponse done = client_.Send("PUT", session, "", {{"Content-Range", "bytes */42"}});
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(Body(done)["size"], "42");
  EXPECT_TRUE(Download("streamed.bin").body == kPayload);
}

// The Node client with a `chunkSize` ends an upload whose last chunk is empty with an empty
// range, "bytes A-(A-1)/N" (docs/reference/ai-platform-training.md §11.1): an empty object, and
// one of exactly whole chunks.
TEST_F(StorageApiTest, ResumableUploadEndsWithAnEmptyRange) {
  const std::string empty = StartSession("empty.bin");
  const ClientResponse put = client_.Send("PUT", empty, "", {{"Content-Range", "bytes 0--1/0"}});
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(Body(put)["size"], "0");
  EXPECT_EQ(Download("empty.bin").body, "");

  const std::string whole = StartSession("whole.bin");
  const ClientResponse chunk = client_.Send(
      "PUT", whole, kPayload,
      {{"Content-Range", "bytes 0-41/*"}, {"Content-Type", "application/octet-stream"}});
  EXPECT_EQ(chunk.status, 308) << chunk.body;
  const ClientResponse last = client_.Send("PUT", whole, "", {{"Content-Range", "bytes 42-41/42"}});
  ASSERT_EQ(last.status, 200) << last.body;
  EXPECT_EQ(Body(last)["size"], "42");
  EXPECT_TRUE(Download("whole.bin").body == kPayload);
}

TEST_F(StorageApiTest, ResumableSessionsCanBeCancelled) {
  const ClientResponse started =
      client_.Send("POST", "/upload/storage/v1/b/bkt/o?uploadType=resumable&name=x", "");
  ASSERT_EQ(started.status, 200);
  const std::string location = started.Header("location");
  const std::string session = location.substr(location.find("/upload/"));
  EXPECT_EQ(client_.Send("DELETE", session).status, 499);
  const ClientResponse after = client_.Send(
      "PUT", session, "x", {{"Content-Range", "bytes 0-0/1"}, {"Content-Type", "text/plain"}});
  EXPECT_EQ(after.status, 404);
  GcsError(after, "notFound");
  EXPECT_EQ(client_
                .Send("PUT", "/upload/storage/v1/b/bkt/o?upload_id=..%2F..%2Fx", "x",
                      {{"Content-Range", "bytes 0-0/1"}, {"Content-Type", "text/plain"}})
                .status,
            404);
}

// Small limits: 1 KiB for ordinary bodies, 64 KiB for spooled uploads.
class UploadLimitTest : public StorageApiTest {
 protected:
  UploadLimitTest()
      : StorageApiTest({.max_body_bytes = 1024, .max_spooled_body_bytes = 64 << 10}) {}
};

TEST_F(UploadLimitTest, UploadsMayExceedTheOrdinaryBodyLimitUpToTheirOwn) {
  const std::string large(32 << 10, 'x');
  EXPECT_EQ(UploadMedia("large", large).status, 200);
  EXPECT_EQ(UploadMultipart("large2", large).status, 200);
  EXPECT_EQ(client_.Post("/storage/v1/b?project=p", large).status, 413);
  const ClientResponse too_large = UploadMedia("huge", std::string(65 << 10, 'y'));
  EXPECT_EQ(too_large.status, 413);
  EXPECT_EQ(Tree(), (std::vector<std::string>{".uploads", ".uploads/sessions", "bkt", "bkt/large",
                                              "bkt/large2"}));
}

}  // namespace
}  // namespace trainyard::testing
