// `trainyard kubeconfig`: the kubeconfig kubectl reads, pointing at the server.
#include "cli/commands/kubeconfig.h"

#include <gtest/gtest.h>

namespace trainyard::cli {
namespace {

TEST(KubeconfigTest, PointsTheContextAtTheServerAndNamespace) {
  const std::string config = Kubeconfig("http://127.0.0.1:8470/", "team-a");
  EXPECT_NE(config.find("    server: \"http://127.0.0.1:8470\"\n"), std::string::npos) << config;
  EXPECT_NE(config.find("    namespace: \"team-a\"\n"), std::string::npos) << config;
  EXPECT_NE(config.find("current-context: trainyard\n"), std::string::npos) << config;
}

TEST(KubeconfigTest, KeepsAUrlWithoutTrailingSlashAsIs) {
  EXPECT_NE(Kubeconfig("https://gpu-box:9000", "default").find("server: \"https://gpu-box:9000\""),
            std::string::npos);
}

// @kubernetes/client-node refuses a plain-http cluster without it ("HTTP protocol is not allowed
// when skipTLSVerify is not set or false"); an https cluster stays verified.
TEST(KubeconfigTest, SkipsTlsVerificationOnlyOnPlainHttp) {
  struct Case {
    std::string_view server;
    std::string_view ca;
    bool skips;
  };
  for (const Case& c :
       {Case{"http://127.0.0.1:8470/", "", true}, Case{"https://gpu-box:9000", "", false},
        Case{"https://gpu-box:9000", "/etc/ca.pem", false}}) {
    const std::string config = Kubeconfig(c.server, "default", "", c.ca);
    EXPECT_EQ(config.find("    insecure-skip-tls-verify: true\n") != std::string::npos, c.skips)
        << config;
    EXPECT_EQ(config.find("    certificate-authority:") != std::string::npos, !c.ca.empty())
        << config;
  }
}

}  // namespace
}  // namespace trainyard::cli
