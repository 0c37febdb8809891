#include "server/console_assets.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace trainyard::server {
namespace {

struct ServesCase {
  std::string_view target;
  bool serves;
};

TEST(ConsoleAssets, ServesOnlyItsOwnPaths) {
  for (const ServesCase& c :
       {ServesCase{"/console", true}, ServesCase{"/console/", true},
        ServesCase{"/console/app.js", true}, ServesCase{"/console/?x=1", true},
        ServesCase{"/console?x", true}, ServesCase{"/consoles", false},
        ServesCase{"/consolex/a", false}, ServesCase{"/v1/projects/p/jobs", false},
        ServesCase{"/healthz", false}, ServesCase{"/", false}}) {
    EXPECT_EQ(ConsoleServes(c.target), c.serves) << c.target;
  }
}

HttpResponse Get(std::string target, std::string method = "GET") {
  return ConsoleAnswer(HttpRequest{.method = std::move(method), .target = std::move(target)});
}

TEST(ConsoleAssets, TheRootIsIndexHtml) {
  const HttpResponse root = Get("/console/");
  EXPECT_EQ(root.status, 200);
  EXPECT_EQ(root.content_type, "text/html; charset=utf-8");
  EXPECT_NE(root.body.find("<html"), std::string::npos) << root.body;
  EXPECT_EQ(Get("/console/index.html").body, root.body);
  EXPECT_EQ(Get("/console/?fresh=1").body, root.body);
  EXPECT_EQ(root.route, "console");
}

TEST(ConsoleAssets, RedirectsTheBarePathToTheDirectory) {
  const HttpResponse response = Get("/console");
  EXPECT_EQ(response.status, 301);
  ASSERT_EQ(response.headers.size(), 1U);
  EXPECT_EQ(response.headers[0], (std::pair<std::string, std::string>{"Location", "/console/"}));
}

TEST(ConsoleAssets, ServesTheScriptTheIndexNames) {
  if (Get("/console/").body.find("app.js") == std::string::npos) {
    GTEST_SKIP() << "built with -DTY_CONSOLE=OFF";
  }
  const HttpResponse script = Get("/console/app.js");
  EXPECT_EQ(script.status, 200);
  EXPECT_EQ(script.content_type, "text/javascript; charset=utf-8");
  EXPECT_FALSE(script.body.empty());
  EXPECT_EQ(Get("/console/app.css").content_type, "text/css; charset=utf-8");
}

TEST(ConsoleAssets, RefusesUnknownFilesAndOtherMethods) {
  const HttpResponse missing = Get("/console/secrets.txt");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("secrets.txt"), std::string::npos) << missing.body;
  EXPECT_EQ(Get("/console/../tokens.db").status, 404);
  const HttpResponse post = Get("/console/", "POST");
  EXPECT_EQ(post.status, 405);
  const HttpResponse head = Get("/console/", "HEAD");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
}

}  // namespace
}  // namespace trainyard::server
