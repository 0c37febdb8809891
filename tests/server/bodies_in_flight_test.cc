// The total of request bodies in flight against the real transport (issue #31): with a small
// budget, a second large body is answered 503 from its head while the first is in flight, its body
// unread and never spooled, and never reaches the handler; once the first is answered, or its
// client goes away mid-body, the budget takes a new one. A chunked body that outgrows the budget
// mid-way is refused the same, and a body larger than the whole budget is too large (413).
#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"
#include "integration/raw_connection.h"
#include "server/http_server.h"
#include "server/rpc_error.h"
#include "support/wait.h"

namespace trainyard::server {
namespace {

using testing::RawConnection;

constexpr std::size_t kUpload = 600'000;  // two do not fit in the spool budget below
constexpr std::uint64_t kSpoolBudget = std::uint64_t{1} << 20;
constexpr std::uint64_t kMemoryBudget = std::uint64_t{64} << 10;

// Answers with the size of the body it was given; counts the requests that reached it.
class SizeHandler final : public HttpHandler {
 public:
  HttpResponse Handle(const HttpRequest& request) override {
    ++handled;
    std::error_code ec;
    const std::uintmax_t size = request.body_file.empty()
                                    ? request.body.size()
                                    : std::filesystem::file_size(request.body_file, ec);
    return JsonResponse(R"({"size":)" + std::to_string(size) + "}");
  }
  HttpResponse Reject(int status, const Status& why) override { return ErrorResponse(status, why); }

  std::atomic<int> handled{0};
};

// The status of the last answer in `text` (after any 100 Continue); 0 when there is none.
int LastStatus(const std::string& text) {
  const std::size_t at = text.rfind("HTTP/1.1 ");
  return at == std::string::npos ? 0 : std::stoi(text.substr(at + 9, 3));
}

std::size_t FilesIn(const std::filesystem::path& dir) {
  std::size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    count += entry.is_regular_file() ? 1 : 0;
  }
  return count;
}

class BodiesInFlightTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ =
        std::make_unique<HttpServer>(HttpServerOptions{.port = 0,
                                                       .max_body_bytes_in_flight = kMemoryBudget,
                                                       .spool_prefixes = {"/upload/"},
                                                       .spool_dir = spool_.path().string(),
                                                       .max_spooled_bytes_in_flight = kSpoolBudget},
                                     handler_);
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    port_ = *port;
  }

  // A connection whose request head for `path` promising `length` bytes has been read and its
  // body asked for (100 Continue): its share of the budget is reserved.
  RawConnection InFlight(const std::string& path, std::size_t length) const {
    RawConnection connection(port_);
    EXPECT_TRUE(connection.Send(Head(path, length, "Expect: 100-continue\r\n")));
    std::string answer;
    EXPECT_TRUE(::trainyard::testing::WaitUntil(
        [&] { return connection.ReadAvailable(answer) || answer.ends_with("\r\n\r\n"); },
        std::chrono::seconds(10)));
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 100 ")) << answer;
    return connection;
  }

  static std::string Head(const std::string& path, std::size_t length, const std::string& extra) {
    return "POST " + path + " HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: " +
           std::to_string(length) + "\r\n" + extra + "\r\n";
  }

  testing::TempDir spool_;
  SizeHandler handler_;
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
};

TEST_F(BodiesInFlightTest, ASecondUploadIsRefusedWhileTheFirstHoldsTheBudget) {
  RawConnection first = InFlight("/upload/first", kUpload);
  ASSERT_TRUE(first.Send(std::string(1000, 'a')));  // part of its body

  RawConnection second(port_);
  ASSERT_TRUE(second.Send(Head("/upload/second", kUpload, "Expect: 100-continue\r\n")));
  const std::string refused = second.ReadUntilClosed();
  EXPECT_TRUE(refused.starts_with("HTTP/1.1 503 ")) << refused << " (no 100 Continue first)";
  EXPECT_NE(refused.find("Retry-After: 1\r\n"), std::string::npos) << refused;
  EXPECT_NE(refused.find(R"("status":"UNAVAILABLE")"), std::string::npos) << refused;
  EXPECT_NE(refused.find("limit of 1048576 bytes of request bodies spooled to disk"),
            std::string::npos)
      << refused;
  // A client that sends its body without waiting is refused the same, the body unread.
  RawConnection eager(port_);
  ASSERT_TRUE(eager.Send(Head("/upload/eager", kUpload, "")));
  (void)eager.Send(std::string(32 << 10, 'e'));
  EXPECT_EQ(LastStatus(eager.ReadUntilClosed()), 503);
  EXPECT_EQ(FilesIn(spool_.path()), 1U) << "only the first body is spooled";
  EXPECT_EQ(handler_.handled.load(), 0);

  ASSERT_TRUE(first.Send(std::string(kUpload - 1000, 'a')));
  const std::string stored = first.ReadUntilClosed();
  EXPECT_EQ(LastStatus(stored), 200) << stored;
  EXPECT_NE(stored.find(R"({"size":600000})"), std::string::npos) << stored;

  // Answered: its share is back, and a new upload of the same size is read.
  RawConnection third = InFlight("/upload/third", kUpload);
  ASSERT_TRUE(third.Send(std::string(kUpload, 'c')));
  EXPECT_EQ(LastStatus(third.ReadUntilClosed()), 200);
  EXPECT_EQ(handler_.handled.load(), 2);
}

TEST_F(BodiesInFlightTest, AClientGoneMidBodyGivesItsShareBack) {
  {
    RawConnection gone = InFlight("/upload/gone", kUpload);
    ASSERT_TRUE(gone.Send(std::string(1000, 'g')));
  }  // closed mid-body
  // The server notices the close and releases the share: an upload as large is then taken.
  EXPECT_TRUE(::trainyard::testing::WaitUntil(
      [&] {
        RawConnection next(port_);
        if (!next.Send(Head("/upload/next", kUpload, "Expect: 100-continue\r\n"))) {
          return false;
        }
        std::string answer;
        (void)::trainyard::testing::WaitUntil(
            [&] { return next.ReadAvailable(answer) || answer.ends_with("\r\n\r\n"); },
            std::chrono::seconds(10));
        return answer.starts_with("HTTP/1.1 100 ");
      },
      std::chrono::seconds(30)));
  EXPECT_EQ(handler_.handled.load(), 0);
}

TEST_F(BodiesInFlightTest, AChunkedBodyThatOutgrowsTheBudgetMidWayIsRefused) {
  RawConnection held = InFlight("/small", 40'000);  // in memory: 40000 of 65536 bytes held
  RawConnection chunked(port_);
  ASSERT_TRUE(chunked.Send(
      "POST /chunked HTTP/1.1\r\nHost: h\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
      "7530\r\n" +  // 30000 bytes: more than is left
      std::string(30'000, 'x') +
      "\r\n0\r\n\r\n"));
  const std::string refused = chunked.ReadUntilClosed();
  EXPECT_EQ(LastStatus(refused), 503) << refused;
  EXPECT_NE(refused.find("bytes of request bodies held in memory"), std::string::npos) << refused;
  EXPECT_EQ(handler_.handled.load(), 0);

  ASSERT_TRUE(held.Send(std::string(40'000, 'h')));
  EXPECT_EQ(LastStatus(held.ReadUntilClosed()), 200);
  // The same chunked body fits once nothing else is held.
  RawConnection again(port_);
  ASSERT_TRUE(again.Send(
      "POST /chunked HTTP/1.1\r\nHost: h\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
      "7530\r\n" +
      std::string(30'000, 'x') + "\r\n0\r\n\r\n"));
  const std::string stored = again.ReadUntilClosed();
  EXPECT_NE(stored.find(R"({"size":30000})"), std::string::npos) << stored;
}

TEST_F(BodiesInFlightTest, ABodyLargerThanTheWholeBudgetIsTooLarge) {
  RawConnection large(port_);
  ASSERT_TRUE(large.Send(Head("/large", kMemoryBudget + 1, "Expect: 100-continue\r\n")));
  const std::string refused = large.ReadUntilClosed();
  EXPECT_EQ(LastStatus(refused), 413) << refused;
  EXPECT_NE(refused.find("limit of 65536 bytes"), std::string::npos) << refused;
}

}  // namespace
}  // namespace trainyard::server
