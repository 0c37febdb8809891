// The test client's own promise: a server that accepts but never answers fails the call at the
// client's deadline instead of hanging the test.
#include "integration/http_client.h"

#include <chrono>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <gtest/gtest.h>

namespace trainyard::testing {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// A socket that listens and never accepts: the kernel completes connections into its backlog,
// so clients connect and send, and nothing ever answers.
class SilentListener {
 public:
  SilentListener() : acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {}
  int port() const { return acceptor_.local_endpoint().port(); }

 private:
  asio::io_context io_;
  tcp::acceptor acceptor_;
};

constexpr std::chrono::milliseconds kShortDeadline(200);

TEST(HttpClientDeadline, FailsARequestThatIsNeverAnswered) {
  SilentListener silent;
  HttpClient client(silent.port(), "127.0.0.1", kShortDeadline);
  const ClientResponse response = client.Get("/healthz");
  EXPECT_EQ(response.status, 0);
  EXPECT_EQ(response.body.rfind("read: ", 0), 0u) << response.body;
}

TEST(HttpClientDeadline, SaysTheServerDidNotCloseWhenItStaysSilent) {
  SilentListener silent;
  HttpClient client(silent.port(), "127.0.0.1", kShortDeadline);
  EXPECT_FALSE(client.ServerCloses("GET / HTTP/1.1\r\n"));
}

}  // namespace
}  // namespace trainyard::testing
