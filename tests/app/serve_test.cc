#include "app/serve.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::app {
namespace {

struct ListenCase {
  std::string name;
  std::string listen;
  bool ok;
  std::string host;
  int port;
};

class ParseListenAddressTest : public ::testing::TestWithParam<ListenCase> {};

TEST_P(ParseListenAddressTest, ParsesHostAndPort) {
  const ListenCase& tc = GetParam();
  auto address = ParseListenAddress(tc.listen);
  ASSERT_EQ(address.ok(), tc.ok) << address.status().ToString();
  if (!tc.ok) {
    EXPECT_EQ(address.status().code(), Code::kInvalidArgument);
    ASSERT_EQ(address.status().violations().size(), 1u);
    EXPECT_EQ(address.status().violations()[0].field, "listen");
    return;
  }
  EXPECT_EQ(address->host, tc.host);
  EXPECT_EQ(address->port, tc.port);
}

INSTANTIATE_TEST_SUITE_P(
    Addresses, ParseListenAddressTest,
    ::testing::Values(ListenCase{"Default", "127.0.0.1:8470", true, "127.0.0.1", 8470},
                      ListenCase{"AnyPort", "127.0.0.1:0", true, "127.0.0.1", 0},
                      ListenCase{"AllInterfaces", "0.0.0.0:80", true, "0.0.0.0", 80},
                      ListenCase{"Ipv6", "[::1]:65535", true, "::1", 65535},
                      ListenCase{"NoPort", "127.0.0.1", false, "", 0},
                      ListenCase{"EmptyPort", "127.0.0.1:", false, "", 0},
                      ListenCase{"NoHost", ":8470", false, "", 0},
                      ListenCase{"PortTooBig", "127.0.0.1:65536", false, "", 0},
                      ListenCase{"NegativePort", "127.0.0.1:-1", false, "", 0},
                      ListenCase{"PortWithJunk", "127.0.0.1:80x", false, "", 0},
                      ListenCase{"BareIpv6", "::1:80", false, "", 0}),
    [](const auto& tc) { return tc.param.name; });

struct AuthChoiceCase {
  std::string listen;
  std::string auth;
  bool insecure_no_auth;
  Code expected;  // kOk when served
};

TEST(CheckAuthChoiceTest, RefusesAnOpenAddressWithoutAuthenticationUnlessTold) {
  const std::vector<AuthChoiceCase> cases = {
      {"127.0.0.1:8470", "none", false, Code::kOk},
      {"127.1.2.3:0", "none", false, Code::kOk},
      {"[::1]:8470", "none", false, Code::kOk},
      {"localhost:8470", "none", false, Code::kOk},
      {"0.0.0.0:8470", "none", false, Code::kFailedPrecondition},
      {"[::]:8470", "none", false, Code::kFailedPrecondition},
      {"10.0.0.5:8470", "none", false, Code::kFailedPrecondition},
      {"128.0.0.1:8470", "none", false, Code::kFailedPrecondition},
      {"0.0.0.0:8470", "none", true, Code::kOk},
      {"0.0.0.0:8470", "tokens", false, Code::kOk},
      {"127.0.0.1:8470", "tokens", false, Code::kOk},
      {"127.0.0.1:8470", "token", false, Code::kInvalidArgument},
      {"127.0.0.1:8470", "", false, Code::kInvalidArgument},
  };
  for (const AuthChoiceCase& c : cases) {
    const ServeOptions options{
        .listen = c.listen, .auth = c.auth, .insecure_no_auth = c.insecure_no_auth};
    const Status status = CheckAuthChoice(options, *ParseListenAddress(c.listen));
    EXPECT_EQ(status.code(), c.expected) << c.listen << " " << c.auth << " " << status.ToString();
    if (c.expected == Code::kFailedPrecondition) {
      EXPECT_NE(status.message().find("--auth tokens"), std::string::npos);
      EXPECT_NE(status.message().find("--insecure-no-auth"), std::string::npos);
      EXPECT_NE(status.message().find(c.listen), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace trainyard::app
