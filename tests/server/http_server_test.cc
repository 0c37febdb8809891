// The transport alone, with a handler that echoes what it got: keep-alive, limits, timeouts and
// malformed input over real loopback sockets.
#include "server/http_server.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "integration/http_client.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

using testing::HttpClient;

// How many response streams the handler made and how many of them the server has let go of,
// for a test to wait on.
class StreamLifetimes {
 public:
  void Made() { Count(made_); }
  void Gone() { Count(gone_); }
  // Whether `count` streams were made (let go of) within 20 s.
  bool WaitForMade(int count) { return WaitFor(made_, count); }
  bool WaitForGone(int count) { return WaitFor(gone_, count); }
  int gone() {
    std::lock_guard lock(mu_);
    return gone_;
  }

 private:
  void Count(int& counter) {
    std::lock_guard lock(mu_);
    ++counter;
    cv_.notify_all();
  }
  bool WaitFor(const int& counter, int count) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(20), [&] { return counter >= count; });
  }

  std::mutex mu_;
  std::condition_variable cv_;
  int made_ = 0;  // guarded by mu_
  int gone_ = 0;  // guarded by mu_
};

// Gives "one", then nothing for a poll, then "two", then ends (or never ends, when endless).
class CountingStream final : public ResponseStream {
 public:
  CountingStream(bool endless, StreamLifetimes& lifetimes)
      : endless_(endless), lifetimes_(lifetimes) {
    lifetimes_.Made();
  }
  ~CountingStream() override { lifetimes_.Gone(); }
  CountingStream(const CountingStream&) = delete;
  CountingStream& operator=(const CountingStream&) = delete;

  bool Poll(std::string& out) override {
    switch (polls_++) {
      case 0:
        out += "one\n";
        return true;
      case 1:
        return true;
      case 2:
        out += "two\n";
        return endless_;
      default:
        return true;
    }
  }

 private:
  bool endless_;
  StreamLifetimes& lifetimes_;
  int polls_ = 0;
};

class EchoHandler final : public HttpHandler {
 public:
  HttpResponse Handle(const HttpRequest& request) override {
    ++handled;
    if (request.target == "/stream" || request.target == "/endless") {
      return HttpResponse{
          .status = 200,
          .content_type = "text/plain",
          .stream = std::make_shared<CountingStream>(request.target == "/endless", streams),
          .poll_interval = std::chrono::milliseconds(5)};
    }
    if (request.target == "/throw") {
      throw std::runtime_error("boom");
    }
    return JsonResponse(nlohmann::json{
        {"method", request.method},
        {"target", request.target},
        {"contentType", request.content_type},
        {"body",
         request.body}}.dump());
  }
  HttpResponse Reject(int http_status, const Status& why) override {
    ++rejected;
    return ErrorResponse(http_status, why);
  }

  std::atomic<int> handled = 0;
  std::atomic<int> rejected = 0;
  StreamLifetimes streams;
};

class HttpServerTest : public ::testing::Test {
 protected:
  void Start(HttpServerOptions options = {}) {
    options.port = 0;
    server_ = std::make_unique<HttpServer>(options, handler_);
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    port_ = *port;
  }

  // A fresh request on a fresh connection still works.
  void ExpectStillServing() {
    HttpClient client(port_);
    EXPECT_EQ(client.Get("/ping").status, 200);
  }

  static nlohmann::json ErrorOf(const testing::ClientResponse& response) {
    EXPECT_EQ(response.Header("content-type"), "application/json; charset=UTF-8");
    return nlohmann::json::parse(response.body)["error"];
  }

  EchoHandler handler_;
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
};

TEST_F(HttpServerTest, ServesManyRequestsOnOneKeepAliveConnection) {
  Start();
  HttpClient client(port_);
  for (int i = 0; i < 3; ++i) {
    const auto response = client.Send("POST", "/x?i=" + std::to_string(i), "{\"a\":1}");
    ASSERT_EQ(response.status, 200) << response.body;
    const auto body = nlohmann::json::parse(response.body);
    EXPECT_EQ(body["method"], "POST");
    EXPECT_EQ(body["target"], "/x?i=" + std::to_string(i));
    EXPECT_EQ(body["contentType"], "application/json");
    EXPECT_EQ(body["body"], "{\"a\":1}");
    EXPECT_EQ(response.Header("content-length"), std::to_string(response.body.size()));
  }
  EXPECT_EQ(client.connections_opened(), 1);
}

TEST_F(HttpServerTest, ClosesWhenTheClientAsksTo) {
  Start();
  HttpClient client(port_);
  const auto response = client.Send("GET", "/a", "", {{"Connection", "close"}});
  EXPECT_EQ(response.status, 200);
  EXPECT_FALSE(response.keep_alive);
  EXPECT_EQ(client.Get("/b").status, 200);
  EXPECT_EQ(client.connections_opened(), 2);
}

TEST_F(HttpServerTest, AnswersPipelinedRequestsInOrder) {
  Start();
  HttpClient client(port_);
  const auto responses = client.SendRaw(
      "GET /first HTTP/1.1\r\nHost: h\r\n\r\nGET /second HTTP/1.1\r\nHost: h\r\n\r\n", 2);
  ASSERT_EQ(responses.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(responses[0].body)["target"], "/first");
  EXPECT_EQ(nlohmann::json::parse(responses[1].body)["target"], "/second");
}

TEST_F(HttpServerTest, RefusesADeclaredBodyOverTheLimitUnread) {
  Start({.max_body_bytes = 1024});
  HttpClient client(port_);
  const auto response = client.Post("/x", std::string(4096, 'a'));
  ASSERT_EQ(response.status, 413) << response.body;
  EXPECT_EQ(ErrorOf(response)["code"], 413);
  EXPECT_EQ(ErrorOf(response)["status"], "INVALID_ARGUMENT");
  EXPECT_FALSE(response.keep_alive);
  EXPECT_EQ(handler_.handled, 0);
  EXPECT_EQ(handler_.rejected, 1);
  EXPECT_EQ(client.Post("/x", std::string(1024, 'a')).status, 200);  // the limit itself is fine
}

TEST_F(HttpServerTest, RefusesAChunkedBodyOverTheLimit) {
  Start({.max_body_bytes = 1024});
  HttpClient client(port_);
  const std::string chunk(800, 'a');
  const auto response =
      client.SendRaw("POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n320\r\n" +
                     chunk + "\r\n320\r\n" + chunk + "\r\n0\r\n\r\n");
  EXPECT_EQ(response.status, 413) << response.body;
  EXPECT_EQ(handler_.handled, 0);
  ExpectStillServing();
}

TEST_F(HttpServerTest, RefusesOversizedHeadersWith431) {
  Start({.max_header_bytes = 4096});
  HttpClient client(port_);
  const auto response = client.Get("/" + std::string(8000, 'a'));
  ASSERT_EQ(response.status, 431) << response.body;
  EXPECT_EQ(ErrorOf(response)["code"], 431);
  EXPECT_EQ(handler_.handled, 0);
  ExpectStillServing();
}

struct MalformedCase {
  std::string name;
  std::string bytes;
};

class MalformedRequestTest : public HttpServerTest,
                             public ::testing::WithParamInterface<MalformedCase> {};

TEST_P(MalformedRequestTest, AnswersWith400AndKeepsServing) {
  Start();
  HttpClient client(port_);
  const auto response = client.SendRaw(GetParam().bytes);
  ASSERT_EQ(response.status, 400) << response.body;
  EXPECT_EQ(ErrorOf(response)["status"], "INVALID_ARGUMENT");
  EXPECT_EQ(handler_.handled, 0);
  ExpectStillServing();
}

INSTANTIATE_TEST_SUITE_P(
    Requests, MalformedRequestTest,
    ::testing::Values(
        MalformedCase{"NotHttp", "HELLO\r\n\r\n"},
        MalformedCase{"BadVersion", "GET / HTTP/9\r\n\r\n"},
        MalformedCase{"BadHeaderLine", "GET / HTTP/1.1\r\nno colon here\r\n\r\n"},
        MalformedCase{"BadContentLength", "POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n"},
        MalformedCase{"TwoContentLengths",
                      "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"},
        MalformedCase{"BadChunkSize",
                      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(HttpServerTest, ClosesAConnectionThatGoesQuiet) {
  Start({.timeout = std::chrono::milliseconds(100)});
  HttpClient client(port_);
  EXPECT_TRUE(client.ServerCloses("GET /slow HTTP/1.1\r\nHost: h\r\n"));  // head never ends
  EXPECT_TRUE(client.ServerCloses(""));                                   // idle keep-alive
  EXPECT_EQ(handler_.handled, 0);
  ExpectStillServing();
}

TEST_F(HttpServerTest, AnswersAHandlerExceptionWithInternal) {
  Start();
  HttpClient client(port_);
  const auto response = client.Get("/throw");
  ASSERT_EQ(response.status, 500);
  EXPECT_EQ(ErrorOf(response)["status"], "INTERNAL");
  EXPECT_EQ(client.Get("/ping").status, 200);
}

TEST_F(HttpServerTest, SendsContinueBeforeTheBodyWhenAsked) {
  Start();
  HttpClient client(port_);
  const auto responses = client.SendRaw(
      "POST /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi", 2);
  ASSERT_EQ(responses.size(), 2u);
  EXPECT_EQ(responses[0].status, 100);
  EXPECT_EQ(responses[1].status, 200);
  EXPECT_EQ(nlohmann::json::parse(responses[1].body)["body"], "hi");
}

TEST_F(HttpServerTest, ServesClientsOnSeveralThreadsAtOnce) {
  Start({.threads = 4});
  std::vector<std::jthread> threads;
  threads.reserve(8);
  std::atomic<int> ok = 0;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      HttpClient client(port_);
      for (int i = 0; i < 25; ++i) {
        ok += client.Get("/c").status == 200 ? 1 : 0;
      }
    });
  }
  threads.clear();
  EXPECT_EQ(ok, 200);
  EXPECT_EQ(handler_.handled, 200);
}

TEST_F(HttpServerTest, StopClosesOpenConnectionsAndIsIdempotent) {
  Start();
  HttpClient client(port_);
  ASSERT_EQ(client.Get("/a").status, 200);
  server_->Stop();
  server_->Stop();
  EXPECT_EQ(client.Get("/b").status, 0);  // the kept-alive connection is gone, nothing listens
}

TEST(HttpServerStart, FailsWhenThePortIsTaken) {
  EchoHandler handler;
  HttpServer first({.port = 0}, handler);
  auto port = first.Start();
  ASSERT_TRUE(port.ok());
  HttpServer second({.port = static_cast<std::uint16_t>(*port)}, handler);
  auto again = second.Start();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kUnavailable);
}

TEST(HttpServerStart, RefusesAHostThatIsNotAnAddress) {
  EchoHandler handler;
  HttpServer server({.host = "localhost", .port = 0}, handler);
  auto port = server.Start();
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace trainyard::server

namespace trainyard::server {
namespace {

TEST_F(HttpServerTest, StreamsABodyInChunksUntilItEnds) {
  Start();
  HttpClient client(port_);
  const auto response = client.Get("/stream");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.Header("transfer-encoding"), "chunked");
  EXPECT_EQ(response.body, "one\ntwo\n");
  ExpectStillServing();
}

TEST_F(HttpServerTest, DropsAStreamWhoseClientHungUp) {
  Start();
  {
    // A bare socket, so the client stays connected until the end of this block.
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    const std::string request = "GET /endless HTTP/1.1\r\nHost: h\r\n\r\n";
    ASSERT_EQ(::write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
    // The server streams, and holds the stream while the client is there.
    const timeval patience{.tv_sec = 20, .tv_usec = 0};
    ASSERT_EQ(::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience), 0);
    std::string received;
    char buffer[512];
    while (received.find("one\n") == std::string::npos) {
      const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
      ASSERT_GT(got, 0) << received;
      received.append(buffer, static_cast<std::size_t>(got));
    }
    ASSERT_TRUE(handler_.streams.WaitForMade(1));
    EXPECT_EQ(handler_.streams.gone(), 0);
    ::close(fd);  // the client hangs up
  }
  EXPECT_TRUE(handler_.streams.WaitForGone(1));
  ExpectStillServing();
}

}  // namespace
}  // namespace trainyard::server
