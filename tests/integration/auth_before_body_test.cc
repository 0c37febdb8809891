// What a client without a valid token can cost the real server (issue #31): its request is
// refused from the head, before any of its body is read or spooled; idle connections without a
// token give way to authenticated ones; one address holds at most its share; and a stream opened
// with a token ends within seconds of the token's revocation.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

#include "access/principal.h"
#include "integration/live_server.h"
#include "integration/raw_connection.h"
#include "support/wait.h"

namespace trainyard::testing {
namespace {

constexpr std::uint64_t kUploadBytes = std::uint64_t{50} << 20;

// The bytes of every file under `dir` (spooled bodies, upload sessions).
std::uint64_t BytesUnder(const std::filesystem::path& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) {
      const std::uintmax_t size = it->file_size(size_ec);
      total += size_ec ? 0 : size;
    }
  }
  return total;
}

int StatusOf(const std::string& response) {
  return response.starts_with("HTTP/1.1 ") ? std::stoi(response.substr(9, 3)) : 0;
}

class AuthBeforeBodyTest : public ::testing::Test {
 protected:
  explicit AuthBeforeBodyTest(server::HttpServerOptions options = {})
      : server_(std::move(options), /*check_tokens=*/true) {
    token_ = Token("editor");
  }

  std::string Token(const std::string& name) {
    return *server_.tokens().Create({.name = name,
                                     .grants = *access::GrantsFor(access::Role::kEditor, {"proj"}),
                                     .create_time = clock_.Now()});
  }

  std::string UploadHead(const std::string& extra_headers) const {
    return "POST /upload/storage/v1/b/bkt/o?uploadType=media&name=big HTTP/1.1\r\nHost: h\r\n"
           "Content-Type: application/octet-stream\r\nContent-Length: " +
           std::to_string(kUploadBytes) + "\r\n" + extra_headers + "\r\n";
  }

  std::filesystem::path SpoolDir() const { return server_.dir().path() / "buckets" / ".uploads"; }

  SystemClock clock_;
  LiveServer server_;
  std::string token_;
};

TEST_F(AuthBeforeBodyTest, AnUploadWithoutATokenIsRefusedBeforeItsBodyIsRead) {
  RawConnection upload(server_.port());
  ASSERT_TRUE(upload.Send(UploadHead("")));
  // The answer comes from the head alone, and the server stops sending.
  const std::string answer = upload.ReadUntilClosed();
  EXPECT_EQ(StatusOf(answer), 401) << answer;
  EXPECT_NE(answer.find("WWW-Authenticate: Bearer"), std::string::npos) << answer;
  // The body the client sends anyway is cut off after a few buffers, and never reaches the disk.
  const std::string piece(std::size_t{64} << 10, 'x');
  std::uint64_t sent = 0;
  std::uint64_t most_on_disk = 0;
  while (sent < kUploadBytes && upload.Send(piece)) {
    sent += piece.size();
    most_on_disk = std::max(most_on_disk, BytesUnder(SpoolDir()));
  }
  std::printf(
      "refused upload: %llu of %llu bytes sent before the server cut it off; at most %llu "
      "bytes spooled\n",
      static_cast<unsigned long long>(sent), static_cast<unsigned long long>(kUploadBytes),
      static_cast<unsigned long long>(most_on_disk));
  EXPECT_LT(sent, kUploadBytes);
  EXPECT_EQ(most_on_disk, 0u);
}

TEST_F(AuthBeforeBodyTest, ARevokedTokenIsRefusedBeforeAHundredContinue) {
  const std::string gone = Token("gone");
  ASSERT_TRUE(server_.tokens().Revoke("gone").ok());
  RawConnection upload(server_.port());
  ASSERT_TRUE(
      upload.Send(UploadHead("Authorization: Bearer " + gone + "\r\nExpect: 100-continue\r\n")));
  const std::string answer = upload.ReadUntilClosed();
  EXPECT_EQ(StatusOf(answer), 401) << answer;  // the first and only answer: no 100 Continue
  EXPECT_EQ(answer.find("100 Continue"), std::string::npos) << answer;
  EXPECT_EQ(BytesUnder(SpoolDir()), 0u);
}

TEST_F(AuthBeforeBodyTest, AnUploadWithATokenIsStillRead) {
  HttpClient client(server_.port());
  const Headers auth = {{"Authorization", "Bearer " + token_}};
  ASSERT_EQ(client.Send("POST", "/storage/v1/b?project=proj", R"({"name":"bkt"})", auth).status,
            200);
  const ClientResponse stored =
      client.Send("POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=small", "data",
                  {{"Authorization", "Bearer " + token_}, {"Content-Type", "text/plain"}});
  EXPECT_EQ(stored.status, 200) << stored.body;
}

class ConnectionShareTest : public AuthBeforeBodyTest {
 protected:
  ConnectionShareTest()
      : AuthBeforeBodyTest({.max_connections = 16, .max_connections_per_address = 4}) {}
};

TEST_F(ConnectionShareTest, OneAddressHoldsAtMostItsShare) {
  // Four connections in the middle of authenticated requests (a body promised, not sent), their
  // heads read (the server asked for the body).
  std::vector<RawConnection> busy;
  for (int i = 0; i < 4; ++i) {
    busy.emplace_back(server_.port(), "127.0.0.1");
    ASSERT_TRUE(busy.back().Send("POST " + JobsPath() +
                                 " HTTP/1.1\r\nHost: h\r\nContent-Length: 9\r\nExpect: "
                                 "100-continue\r\nAuthorization: Bearer " +
                                 token_ + "\r\n\r\n"));
    std::string answer;
    ASSERT_TRUE(WaitUntil(
        [&] {
          return busy.back().ReadAvailable(answer) || answer.find("\r\n\r\n") != std::string::npos;
        },
        std::chrono::seconds(10)));
    ASSERT_EQ(StatusOf(answer), 100) << answer;
  }
  const auto status_from = [&](const char* from) {
    RawConnection probe(server_.port(), from);
    if (!probe.Send("GET /healthz HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")) {
      return 0;
    }
    return StatusOf(probe.ReadUntilClosed());
  };
  EXPECT_TRUE(WaitUntil([&] { return status_from("127.0.0.1") == 503; }, std::chrono::seconds(30)));
  EXPECT_EQ(status_from("127.0.0.2"), 200);
}

TEST_F(ConnectionShareTest, AnAuthenticatedRequestIsServedWhileIdleClientsHoldTheLimit) {
  // Sixteen idle connections from four addresses hold every place, none with a token.
  std::vector<RawConnection> idle;
  for (const char* from : {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}) {
    for (int i = 0; i < 4; ++i) {
      idle.emplace_back(server_.port(), from);
      ASSERT_TRUE(idle.back().ok()) << from;
    }
  }
  HttpClient client(server_.port());
  const ClientResponse served =
      client.Send("GET", JobsPath(), "", {{"Authorization", "Bearer " + token_}});
  EXPECT_EQ(served.status, 200) << served.body;
  // It took the place of the oldest idle one.
  EXPECT_TRUE(WaitUntil([&] { return idle.front().ServerClosed(); }, std::chrono::seconds(30)));
}

TEST_F(AuthBeforeBodyTest, AWatchEndsSoonAfterItsTokenIsRevoked) {
  const std::string watcher = Token("watcher");
  RawConnection watch(server_.port());
  ASSERT_TRUE(
      watch.Send("GET /apis/kubeflow.org/v1/namespaces/proj/tfjobs?watch=true "
                 "HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer " +
                 watcher + "\r\n\r\n"));
  std::string text;
  ASSERT_TRUE(WaitUntil(
      [&] { return watch.ReadAvailable(text) || text.find("\r\n\r\n") != std::string::npos; },
      std::chrono::seconds(10)));
  ASSERT_EQ(StatusOf(text), 200) << text;
  ASSERT_FALSE(watch.ServerClosed());
  ASSERT_TRUE(server_.tokens().Revoke("watcher").ok());
  // Within seconds (the watch re-checks its token every two), not at its 30-minute timeout.
  EXPECT_TRUE(WaitUntil([&] { return watch.ReadAvailable(text); }, std::chrono::seconds(30)));
  EXPECT_NE(text.find("0\r\n\r\n"), std::string::npos) << "the stream ends cleanly: " << text;
}

}  // namespace
}  // namespace trainyard::testing
