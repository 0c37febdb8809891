// `StorageClient` uploads against the real server in-process (integration/live_server.h): the
// bytes and content type that arrive, multipart and resumable, and a missing bucket.
#include "cli/client/storage_client.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/live_server.h"

namespace trainyard::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Bytes that differ at every offset, so a misplaced chunk shows.
std::string Pattern(std::size_t size) {
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<char>((i * 7 + i / 251) % 256);
  }
  return bytes;
}

class StorageClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto created =
        client_.Post("/storage/v1/b?project=proj", nlohmann::json{{"name", "bkt1"}}.dump());
    ASSERT_EQ(created.status, 200) << created.body;
  }

  StorageClient Client(UploadOptions upload = {}) const {
    return StorageClient(*ParseServerUrl(fmt::format("http://127.0.0.1:{}/", server_.port())), {},
                         upload);
  }

  fs::path Write(const std::string& name, const std::string& bytes) const {
    fs::path path = server_.dir().path() / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  // The object's metadata and bytes, as a client downloading it gets them.
  nlohmann::json Metadata(const std::string& name) {
    return testing::Body(client_.Get("/storage/v1/b/bkt1/o/" + PercentEncode(name)));
  }
  std::string Bytes(const std::string& name) {
    const auto got = client_.Get("/storage/v1/b/bkt1/o/" + PercentEncode(name) + "?alt=media");
    EXPECT_EQ(got.status, 200) << got.body;
    return got.body;
  }

  testing::LiveServer server_;
  testing::HttpClient client_{server_.port()};
};

TEST_F(StorageClientTest, ASmallFileGoesInOneMultipartRequest) {
  const std::string bytes = Pattern(100'000);
  const Status uploaded =
      Client().Upload(Write("trainer-0.1.tar.gz", bytes), {"bkt1", "job_1/abc/trainer-0.1.tar.gz"});
  ASSERT_TRUE(uploaded.ok()) << uploaded.ToString();
  EXPECT_EQ(Bytes("job_1/abc/trainer-0.1.tar.gz"), bytes);
  const nlohmann::json metadata = Metadata("job_1/abc/trainer-0.1.tar.gz");
  EXPECT_EQ(metadata["contentType"], "application/x-tar");
  EXPECT_EQ(metadata["size"], "100000");
}

TEST_F(StorageClientTest, ALargerFileGoesInResumableChunks) {
  const std::string bytes = Pattern(600 * 1024 + 17);  // three chunks, the last one short
  const Status uploaded =
      Client({.resumable_threshold = 1024, .chunk_size = std::uint64_t{256} << 10})
          .Upload(Write("big.whl", bytes), {"bkt1", "packages/big.whl"});
  ASSERT_TRUE(uploaded.ok()) << uploaded.ToString();
  EXPECT_EQ(Bytes("packages/big.whl"), bytes);
  EXPECT_EQ(Metadata("packages/big.whl")["contentType"], "application/octet-stream");
}

TEST_F(StorageClientTest, AnEmptyFileIsAnEmptyObject) {
  for (const std::uint64_t threshold : {std::uint64_t{5} << 20, std::uint64_t{0}}) {
    const std::string name = fmt::format("empty-{}.tar", threshold);
    const Status uploaded =
        Client({.resumable_threshold = threshold}).Upload(Write("empty.tar", ""), {"bkt1", name});
    ASSERT_TRUE(uploaded.ok()) << threshold << ": " << uploaded.ToString();
    EXPECT_EQ(Metadata(name)["size"], "0");
  }
}

TEST_F(StorageClientTest, AMissingBucketIsNotFoundWithHowToCreateIt) {
  const fs::path file = Write("trainer.tar.gz", "bytes");
  for (const std::uint64_t threshold : {std::uint64_t{5} << 20, std::uint64_t{0}}) {
    const Status uploaded =
        Client({.resumable_threshold = threshold}).Upload(file, {"nobucket", "a/trainer.tar.gz"});
    EXPECT_EQ(uploaded.code(), Code::kNotFound) << threshold;
    EXPECT_EQ(
        uploaded.message(),
        fmt::format("Could not upload file: [nobucket] bucket does not exist. Create it with "
                    "`gcloud storage buckets create gs://nobucket`, with gcloud's storage API "
                    "pointed at this trainyard server (`gcloud config set "
                    "api_endpoint_overrides/storage http://127.0.0.1:{}/storage/v1/`), then "
                    "submit again.",
                    server_.port()));
  }
}

TEST_F(StorageClientTest, OtherRefusalsNameTheFileAndTheObject) {
  const fs::path file = Write("trainer.tar.gz", "bytes");
  const Status uploaded = Client().Upload(file, {"bkt1", "../escape.tar.gz"});
  EXPECT_EQ(uploaded.code(), Code::kInvalidArgument);
  EXPECT_THAT(uploaded.message(),
              HasSubstr(fmt::format("400 Could not upload file [{}] to [bkt1/../escape.tar.gz]: ",
                                    file.string())));
}

TEST_F(StorageClientTest, AnUnreadableFileIsInvalid) {
  const Status uploaded = Client().Upload("/nonexistent/a.tar.gz", {"bkt1", "a.tar.gz"});
  EXPECT_EQ(uploaded.code(), Code::kInvalidArgument);
  EXPECT_EQ(uploaded.message(), "[/nonexistent/a.tar.gz] not found or not accessible");
}

struct ContentTypeCase {
  std::string name;
  std::string file;
  std::string type;
};

class ContentTypeTest : public ::testing::TestWithParam<ContentTypeCase> {};

TEST_P(ContentTypeTest, IsWhatPythonMimetypesGuesses) {
  EXPECT_EQ(GuessContentType(GetParam().file), GetParam().type);
}

INSTANTIATE_TEST_SUITE_P(
    Mimetypes, ContentTypeTest,
    ::testing::Values(ContentTypeCase{"Sdist", "trainer-0.0.0.tar.gz", "application/x-tar"},
                      ContentTypeCase{"Tgz", "a.TGZ", "application/x-tar"},
                      ContentTypeCase{"TarBz2", "a.tar.bz2", "application/x-tar"},
                      ContentTypeCase{"Tar", "a.tar", "application/x-tar"},
                      ContentTypeCase{"Zip", "a.zip", "application/zip"},
                      ContentTypeCase{"Wheel", "a-1-py3-none-any.whl", "application/octet-stream"},
                      ContentTypeCase{"GzOnly", "a.gz", "application/octet-stream"}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::cli
