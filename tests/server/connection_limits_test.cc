// Idle and slow clients against the real transport (issue #17, #31): a normal request is still
// served beside 200 idle connections and 50 that trickle their headers; at `max_connections` or
// `max_connections_per_address` a newcomer takes the place of an idle connection that never
// authenticated, and is answered 503 at once when there is none. The latencies are printed for the
// notes; no test asserts a time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"
#include "integration/http_client.h"
#include "integration/raw_connection.h"
#include "server/http_server.h"
#include "support/wait.h"

namespace trainyard::server {
namespace {

using testing::HttpClient;
using testing::RawConnection;

// Admits every request; one with "Authorization: ok" as authenticated.
class OkHandler final : public HttpHandler {
 public:
  Admission Admit(const HttpRequest& head) override {
    return {.authenticated = head.Header("authorization") == "ok"};
  }
  HttpResponse Handle(const HttpRequest&) override { return JsonResponse("{}"); }
  HttpResponse Reject(int status, const Status&) override { return {.status = status}; }
};

class ConnectionLimitsTest : public ::testing::Test {
 protected:
  void Start(HttpServerOptions options) {
    options.port = 0;
    server_ = std::make_unique<HttpServer>(options, handler_);
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    port_ = *port;
  }

  OkHandler handler_;
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
};

// 50 requests on fresh connections, one after another, `between` called after each: their
// latencies in milliseconds, sorted.
std::vector<double> TimeRequests(
    int port, const std::function<void()>& between = [] {}) {
  std::vector<double> millis;
  for (int i = 0; i < 50; ++i) {
    HttpClient client(port);
    const auto start = std::chrono::steady_clock::now();
    const testing::ClientResponse response = client.Get("/ping");
    millis.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    EXPECT_EQ(response.status, 200) << i << ": " << response.body;
    between();
  }
  std::sort(millis.begin(), millis.end());
  return millis;
}

TEST_F(ConnectionLimitsTest, ANormalRequestIsServedBesideIdleAndSlowClients) {
  Start({});
  const std::vector<double> alone = TimeRequests(port_);
  std::vector<RawConnection> held;
  for (int i = 0; i < 250; ++i) {
    held.emplace_back(port_);
    ASSERT_TRUE(held.back().ok()) << i;
  }
  // The last 50 trickle a request head, a byte each between two of the timed requests.
  const std::string head = "GET /slow HTTP/1.1\r\nHost: h\r\nX-Slow: ";
  std::size_t at = 0;
  const std::vector<double> loaded = TimeRequests(port_, [&] {
    for (std::size_t i = 200; i < held.size(); ++i) {
      // A slow client the server has dropped meanwhile is no failure here.
      (void)held[i].Send(at < head.size() ? head.substr(at, 1) : std::string("a"));
    }
    ++at;
  });
  std::printf(
      "50 requests alone: p50 %.2f ms, max %.2f ms; beside 200 idle and 50 slow connections: "
      "p50 %.2f ms, max %.2f ms\n",
      alone[alone.size() / 2], alone.back(), loaded[loaded.size() / 2], loaded.back());
}

// Connections in the middle of a request: each has sent a head promising a body it never sends,
// and the server has read it (it asked for the body with a 100 Continue).
std::vector<RawConnection> Busy(int port, int count, const char* from = nullptr) {
  std::vector<RawConnection> held;
  for (int i = 0; i < count; ++i) {
    held.emplace_back(port, from);
    EXPECT_TRUE(held.back().Send(
        "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 9\r\nExpect: 100-continue\r\n\r\n"))
        << i;
    std::string answer;
    EXPECT_TRUE(::trainyard::testing::WaitUntil(
        [&] {
          return held.back().ReadAvailable(answer) || answer.find("\r\n\r\n") != std::string::npos;
        },
        std::chrono::seconds(10)));
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 100 ")) << i << ": " << answer;
  }
  return held;
}

// The status of the answer to a GET from `from` (any loopback address), once it is `status`; the
// last one (0: none) when it never is within the deadline.
int WaitForStatus(int port, int status, const char* from = "127.0.0.1") {
  int last = 0;
  (void)::trainyard::testing::WaitUntil(
      [&] {
        RawConnection connection(port, from);
        if (!connection.ok() ||
            !connection.Send("GET /ping HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")) {
          return false;
        }
        const std::string text = connection.ReadUntilClosed();
        last = text.starts_with("HTTP/1.1 ") ? std::stoi(text.substr(9, 3)) : 0;
        return last == status;
      },
      std::chrono::seconds(30));
  return last;
}

TEST_F(ConnectionLimitsTest, AConnectionPastTheCapIsAnswered503AtOnceWhenNoneIsIdle) {
  Start({.max_connections = 5});
  std::vector<RawConnection> held = Busy(port_, 5);
  // The server registers a connection once it has accepted it: wait until the cap is reached.
  testing::ClientResponse refused;
  ASSERT_TRUE(::trainyard::testing::WaitUntil(
      [&] {
        HttpClient client(port_);
        refused = client.Get("/ping");
        return refused.status == 503;
      },
      std::chrono::seconds(30)))
      << refused.status << " " << refused.body;
  EXPECT_EQ(refused.Header("retry-after"), "1");
  EXPECT_NE(refused.body.find("too many open connections"), std::string::npos);
  held.clear();  // the held connections close; the server notices and serves again
  testing::ClientResponse served;
  EXPECT_TRUE(::trainyard::testing::WaitUntil(
      [&] {
        HttpClient client(port_);
        served = client.Get("/ping");
        return served.status == 200;
      },
      std::chrono::seconds(30)))
      << served.status << " " << served.body;
}

TEST_F(ConnectionLimitsTest, ANewcomerTakesThePlaceOfTheOldestIdleConnection) {
  Start({.max_connections = 5});
  std::vector<RawConnection> idle;
  for (int i = 0; i < 5; ++i) {
    idle.emplace_back(port_);
    ASSERT_TRUE(idle.back().ok());
  }
  EXPECT_EQ(WaitForStatus(port_, 200), 200);
  EXPECT_TRUE(::trainyard::testing::WaitUntil([&] { return idle.front().ServerClosed(); },
                                              std::chrono::seconds(30)));
}

TEST_F(ConnectionLimitsTest, AnAuthenticatedIdleConnectionIsNeverGivenUp) {
  Start({.max_connections = 3});
  std::vector<RawConnection> kept;
  for (int i = 0; i < 3; ++i) {
    kept.emplace_back(port_);
    ASSERT_TRUE(kept.back().Send("GET /ping HTTP/1.1\r\nHost: h\r\nAuthorization: ok\r\n\r\n"));
    std::string answer;
    ASSERT_TRUE(::trainyard::testing::WaitUntil(
        [&] { return kept.back().ReadAvailable(answer) || answer.ends_with("{}"); },
        std::chrono::seconds(10)));
    ASSERT_TRUE(answer.starts_with("HTTP/1.1 200 ")) << answer;
  }
  // Answered and kept alive, idle: a newcomer finds no place.
  EXPECT_EQ(WaitForStatus(port_, 503), 503);
  for (const RawConnection& connection : kept) {
    EXPECT_FALSE(connection.ServerClosed());
  }
}

TEST_F(ConnectionLimitsTest, OneAddressHoldsAtMostItsShare) {
  Start({.max_connections_per_address = 3});
  std::vector<RawConnection> held = Busy(port_, 3, "127.0.0.1");
  EXPECT_EQ(WaitForStatus(port_, 503, "127.0.0.1"), 503);
  // Another address is served meanwhile.
  EXPECT_EQ(WaitForStatus(port_, 200, "127.0.0.2"), 200);
}

TEST_F(ConnectionLimitsTest, AnUploadSlowerThanTheMinimumRateIsDropped) {
  const testing::TempDir spool;
  Start({.timeout = std::chrono::seconds(2),
         .min_body_bytes_per_second = std::uint64_t{1} << 20,
         .spool_prefixes = {"/upload/"},
         .spool_dir = spool.path().string()});
  RawConnection upload(port_);
  ASSERT_TRUE(
      upload.Send("POST /upload/x HTTP/1.1\r\nHost: h\r\nContent-Length: 100000000\r\n\r\n"));
  // A piece far more often than `timeout`, so only the rate can end it: about 2 KB/s.
  const std::string piece(100, 'x');
  EXPECT_TRUE(::trainyard::testing::WaitUntil(
      [&] { return !upload.Send(piece) || upload.ServerClosed(); }, std::chrono::seconds(60)));
}

}  // namespace
}  // namespace trainyard::server
