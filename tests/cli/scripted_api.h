// A scripted HTTP API for the command line's wire tests: the real `server::HttpServer` on
// 127.0.0.1:0 with a handler that records each request and answers as the test says. Thread-safe
// (the server's threads call `Handle`). `ScriptedCliTest` runs the `trainyard` command line
// against it.
#pragma once

#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli/commands/commands.h"
#include "cli/outcome.h"
#include "server/http_server.h"
#include "server/rpc_error.h"

namespace trainyard::testing {

using Reply = std::function<server::HttpResponse(const server::HttpRequest&)>;

class ScriptedApi final : public server::HttpHandler {
 public:
  server::HttpResponse Handle(const server::HttpRequest& request) override {
    Reply reply;
    {
      std::lock_guard lock(mu_);
      requests_.push_back(request);
      reply = reply_;
    }
    return reply(request);
  }
  server::HttpResponse Reject(int http_status, const Status& why) override {
    return server::ErrorResponse(http_status, why);
  }

  void Answer(Reply reply) {
    std::lock_guard lock(mu_);
    reply_ = std::move(reply);
  }
  std::vector<server::HttpRequest> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  mutable std::mutex mu_;
  Reply reply_;                                // guarded by mu_
  std::vector<server::HttpRequest> requests_;  // guarded by mu_
};

// The fixture of the wire tests: a ScriptedApi serving on a port of its own, and the command
// line pointed at it (project "p", region us-central1).
class ScriptedCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto port = http_.Start();
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    url_ = fmt::format("http://127.0.0.1:{}/", *port);
  }

  Outcome Cli(const std::vector<std::string>& args) {
    std::ostringstream out;
    std::ostringstream err;
    const int rc =
        cli::Run(args, out, err, {.server = url_, .project = "p", .region = "us-central1"});
    return {rc, out.str(), err.str()};
  }

  ScriptedApi api_;
  server::HttpServer http_{{.host = "127.0.0.1", .port = 0}, api_};
  std::string url_;
};

}  // namespace trainyard::testing
