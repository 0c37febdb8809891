// `trainyard kubeconfig`: the kubeconfig kubectl reads, pointing at the server.
#include "cli/kubeconfig.h"

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

}  // namespace
}  // namespace trainyard::cli
