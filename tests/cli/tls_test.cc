// HTTPS end to end in process (issue #17): the real server with a certificate signed by a CA made
// here with openssl, and the command line's client verifying it (the CA, the host name), plain
// HTTP sent to the HTTPS port, certificates the server cannot use, and the suites it offers.
#include <cstdlib>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli/client/rest_client.h"
#include "fakes/temp_dir.h"
#include "integration/live_server.h"
#include "server/http_server.h"

namespace trainyard::cli {
namespace {

// Runs `openssl ARGS` in `dir`; false when it failed.
bool OpenSsl(const testing::TempDir& dir, const std::string& args) {
  const std::string command =
      fmt::format("cd '{}' && openssl {} >/dev/null 2>&1", dir.path().string(), args);
  return std::system(command.c_str()) == 0;
}

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(OpenSsl(dir_,
                        "req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 "
                        "-subj /CN=ca"))
        << "openssl is needed (scripts/setup.sh installs it)";
    ASSERT_TRUE(OpenSsl(dir_,
                        "req -x509 -newkey rsa:2048 -nodes -keyout other.key -out "
                        "other.pem -days 2 -subj /CN=other"));
    for (const auto& [name, san] : {std::pair<std::string, std::string>{"server", "IP:127.0.0.1"},
                                    {"elsewhere", "DNS:elsewhere.example"}}) {
      ASSERT_TRUE(OpenSsl(dir_, fmt::format("req -newkey rsa:2048 -nodes -keyout {0}.key -out "
                                            "{0}.csr -subj /CN={0}",
                                            name)));
      std::ofstream(dir_.File(name + ".ext")) << "subjectAltName=" << san << "\n";
      ASSERT_TRUE(OpenSsl(dir_, fmt::format("x509 -req -in {0}.csr -CA ca.pem -CAkey ca.key "
                                            "-CAcreateserial -out {0}.pem -days 2 -extfile "
                                            "{0}.ext",
                                            name)));
    }
  }

  std::unique_ptr<testing::LiveServer> Serve(const std::string& name) {
    return std::make_unique<testing::LiveServer>(server::HttpServerOptions{
        .tls_cert_file = dir_.File(name + ".pem"), .tls_key_file = dir_.File(name + ".key")});
  }

  Result<std::string> List(int port, const std::string& scheme, const std::string& ca) {
    auto client = RestClient::ForUrl(fmt::format("{}://127.0.0.1:{}/", scheme, port),
                                     RestOptions{.ca_file = ca.empty() ? "" : dir_.File(ca)});
    if (!client.ok()) {
      return client.status();
    }
    return client->Call("GET", "v1/projects/p/jobs");
  }

  testing::TempDir dir_;
};

TEST_F(TlsTest, TheClientTalksToTheServerItsCaSigned) {
  const auto server = Serve("server");
  const Result<std::string> listed = List(server->port(), "https", "ca.pem");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(*listed, "{}");
}

TEST_F(TlsTest, TheClientRefusesAnotherCaOrAnotherHost) {
  const auto server = Serve("server");
  const Result<std::string> other_ca = List(server->port(), "https", "other.pem");
  EXPECT_EQ(other_ca.status().code(), Code::kUnavailable);
  EXPECT_NE(other_ca.status().message().find("TLS handshake"), std::string::npos)
      << other_ca.status().message();
  const auto elsewhere = Serve("elsewhere");
  const Result<std::string> wrong_host = List(elsewhere->port(), "https", "ca.pem");
  EXPECT_EQ(wrong_host.status().code(), Code::kUnavailable) << wrong_host.status().ToString();
}

TEST_F(TlsTest, PlainHttpToTheHttpsPortIsToldSo) {
  const auto server = Serve("server");
  const Result<std::string> plain = List(server->port(), "http", "");
  EXPECT_EQ(plain.status().code(), Code::kInvalidArgument);
  EXPECT_NE(plain.status().message().find("This server speaks HTTPS only"), std::string::npos)
      << plain.status().message();
  // The server still serves TLS afterwards.
  EXPECT_TRUE(List(server->port(), "https", "ca.pem").ok());
}

// Whether `openssl s_client FLAGS` completes a handshake with the server on `port`.
bool Handshakes(int port, const std::string& flags) {
  const std::string command = fmt::format(
      "openssl s_client -connect 127.0.0.1:{} {} </dev/null >/dev/null 2>&1", port, flags);
  return std::system(command.c_str()) == 0;
}

// Issue #31: TLS 1.2 without forward secrecy (AES128-SHA, a static RSA key exchange) is refused;
// ECDHE suites and TLS 1.3 are served. The same client succeeding with ECDHE shows that it is the
// suite that is refused.
TEST_F(TlsTest, OnlyForwardSecretSuitesAreOffered) {
  const auto server = Serve("server");
  EXPECT_FALSE(Handshakes(server->port(), "-tls1_2 -cipher AES128-SHA"));
  EXPECT_FALSE(Handshakes(server->port(), "-tls1_2 -cipher AES256-GCM-SHA384"));
  EXPECT_TRUE(Handshakes(server->port(), "-tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256"));
  EXPECT_TRUE(Handshakes(server->port(), "-tls1_2 -cipher ECDHE-RSA-CHACHA20-POLY1305"));
  EXPECT_TRUE(Handshakes(server->port(), "-tls1_3"));
  // The server still serves its own client afterwards.
  EXPECT_TRUE(List(server->port(), "https", "ca.pem").ok());
}

struct NullHandler final : server::HttpHandler {
  server::HttpResponse Handle(const server::HttpRequest&) override { return {}; }
  server::HttpResponse Reject(int, const Status&) override { return {}; }
};

TEST_F(TlsTest, TheServerRefusesACertificateOrKeyItCannotUse) {
  NullHandler handler;
  const auto start = [&](const std::string& cert, const std::string& key) {
    server::HttpServer http(
        {.port = 0, .tls_cert_file = dir_.File(cert), .tls_key_file = dir_.File(key)}, handler);
    return http.Start();
  };
  const Result<int> missing = start("missing.pem", "server.key");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().violations()[0].field, "tls-cert");
  EXPECT_NE(missing.status().violations()[0].description.find("missing.pem"), std::string::npos);
  const Result<int> mismatched = start("server.pem", "other.key");
  ASSERT_FALSE(mismatched.ok());
  EXPECT_EQ(mismatched.status().violations()[0].field, "tls-key");
  EXPECT_TRUE(start("server.pem", "server.key").ok());
}

}  // namespace
}  // namespace trainyard::cli
