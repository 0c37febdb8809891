// The REST client's pure parts: `--server` URLs and percent-encoding. Talking to a server is
// covered by jobs_cli_test.cc, against the real one, and ml_client_test.cc (what goes on the wire).
#include "cli/client/rest_client.h"

#include <string>

#include <gtest/gtest.h>

namespace trainyard::cli {
namespace {

struct UrlCase {
  std::string name;
  std::string url;
  std::string host;  // "" when the URL is refused
  int port = 0;
  std::string base_path;
  bool tls = false;
};

class ParseServerUrlTest : public ::testing::TestWithParam<UrlCase> {};

TEST_P(ParseServerUrlTest, SplitsOrRefuses) {
  const UrlCase& c = GetParam();
  auto server = ParseServerUrl(c.url);
  if (c.host.empty()) {
    ASSERT_FALSE(server.ok());
    EXPECT_EQ(server.status().code(), Code::kInvalidArgument);
    EXPECT_NE(server.status().message().find("Invalid server URL [" + c.url + "]"),
              std::string::npos)
        << server.status().message();
    return;
  }
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_EQ(server->host, c.host);
  EXPECT_EQ(server->port, c.port);
  EXPECT_EQ(server->base_path, c.base_path);
  EXPECT_EQ(server->text, c.url);
  EXPECT_EQ(server->tls, c.tls);
}

INSTANTIATE_TEST_SUITE_P(
    Urls, ParseServerUrlTest,
    ::testing::Values(UrlCase{"Default", "http://127.0.0.1:8470/", "127.0.0.1", 8470, "/"},
                      UrlCase{"NoSlash", "http://localhost:8470", "localhost", 8470, "/"},
                      UrlCase{"NoPort", "http://trainyard.internal/", "trainyard.internal", 80,
                              "/"},
                      UrlCase{"UpperCaseScheme", "HTTP://h:1/", "h", 1, "/"},
                      UrlCase{"PathPrefix", "http://h:9/ml", "h", 9, "/ml/"},
                      UrlCase{"Ipv6", "http://[::1]:8470/", "::1", 8470, "/"},
                      UrlCase{"Https", "https://h/", "h", 443, "/", true},
                      UrlCase{"HttpsWithPort", "HTTPS://[::1]:8443/ml", "::1", 8443, "/ml/", true},
                      UrlCase{"OtherScheme", "ftp://h/"}, UrlCase{"NoScheme", "127.0.0.1:8470"},
                      UrlCase{"NoHost", "http://:8470/"}, UrlCase{"EmptyPort", "http://h:/"},
                      UrlCase{"PortZero", "http://h:0/"}, UrlCase{"PortTooBig", "http://h:65536/"},
                      UrlCase{"PortNotANumber", "http://h:http/"},
                      UrlCase{"UnclosedIpv6", "http://[::1:8470/"},
                      UrlCase{"Query", "http://h/?x=1"}, UrlCase{"UserInfo", "http://u@h/"}),
    [](const auto& tc) { return tc.param.name; });

TEST(PercentEncode, KeepsOnlyUnreservedCharacters) {
  EXPECT_EQ(PercentEncode("job_1-a.b~"), "job_1-a.b~");
  EXPECT_EQ(PercentEncode("jobId:census* AND state=FAILED"),
            "jobId%3Acensus%2A%20AND%20state%3DFAILED");
  EXPECT_EQ(PercentEncode("a/b?c&d#e+f%"), "a%2Fb%3Fc%26d%23e%2Bf%25");
  EXPECT_EQ(PercentEncode("é"), "%C3%A9");
}

}  // namespace
}  // namespace trainyard::cli
