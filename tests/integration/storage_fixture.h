// What the storage API tests share: the live server with a bucket "bkt" of project "proj", a
// client, uploads in each of GCS's forms, and checks of GCS's error shape.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/storage/json.h"
#include "integration/live_server.h"

namespace trainyard::testing {

class StorageApiTest : public ::testing::Test {
 protected:
  explicit StorageApiTest(server::HttpServerOptions options = {}) : server_(std::move(options)) {
    const ClientResponse created = client_.Post("/storage/v1/b?project=proj", R"({"name":"bkt"})");
    EXPECT_EQ(created.status, 200) << created.body;
  }

  static std::string ObjectPath(std::string_view name, std::string_view bucket = "bkt") {
    return "/storage/v1/b/" + std::string(bucket) + "/o/" + server::PercentEncode(name);
  }

  ClientResponse UploadMedia(std::string_view name, std::string_view data,
                             std::string_view bucket = "bkt") {
    return client_.Send("POST",
                        "/upload/storage/v1/b/" + std::string(bucket) +
                            "/o?uploadType=media&name=" + server::PercentEncode(name),
                        data, {{"Content-Type", "application/octet-stream"}});
  }

  // A multipart/related upload as gcloud sends it: LF line ends, a single-quoted boundary.
  ClientResponse UploadMultipart(std::string_view name, std::string_view data,
                                 std::string_view bucket = "bkt") {
    const std::string boundary = "===============7330845974216740156==";
    const std::string body = "--" + boundary + "\ncontent-type: application/json\n\n" +
                             nlohmann::json{{"name", name}}.dump() + "\n--" + boundary +
                             "\ncontent-type: application/octet-stream\n\n" + std::string(data) +
                             "\n--" + boundary + "--\n";
    return client_.Send(
        "POST", "/upload/storage/v1/b/" + std::string(bucket) + "/o?uploadType=multipart&alt=json",
        body, {{"Content-Type", "multipart/related; boundary='" + boundary + "'"}});
  }

  // Starts a resumable upload of `name` and returns the session's path ("/upload/…?upload_id=…").
  std::string StartSession(std::string_view name, std::string_view query = "") {
    const ClientResponse started = client_.Send(
        "POST",
        "/upload/storage/v1/b/bkt/o?uploadType=resumable&name=" + server::PercentEncode(name) +
            std::string(query),
        "");
    EXPECT_EQ(started.status, 200) << started.body;
    const std::string location = started.Header("location");
    const std::size_t path = location.find("/upload/");
    return path == std::string::npos ? location : location.substr(path);
  }

  ClientResponse Download(std::string_view name) {
    return client_.Get(ObjectPath(name) + "?alt=media");
  }

  // The GCS error of `response`, checking its shape: code, message, and one error item.
  static nlohmann::json GcsError(const ClientResponse& response, std::string_view reason) {
    nlohmann::json body = Body(response);
    nlohmann::json error = body["error"];
    EXPECT_EQ(error["code"], response.status) << response.body;
    EXPECT_TRUE(error["message"].is_string() && !error["message"].get<std::string>().empty());
    EXPECT_EQ(error["errors"].size(), 1U) << response.body;
    EXPECT_EQ(error["errors"][0]["domain"], "global");
    EXPECT_EQ(error["errors"][0]["reason"], reason) << response.body;
    EXPECT_EQ(error["errors"][0]["message"], error["message"]);
    return error;
  }

  // Every file and folder under the bucket root (spooled bodies included), relative, sorted.
  std::vector<std::string> Tree() const {
    std::vector<std::string> paths;
    const std::filesystem::path root = server_.dir().path() / "buckets";
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      paths.push_back(std::filesystem::relative(entry.path(), root).string());
    }
    std::sort(paths.begin(), paths.end());
    return paths;
  }

  LiveServer server_;
  HttpClient client_{server_.port()};
};

}  // namespace trainyard::testing
