// A scripted HTTP API for the command line's wire tests: the real `server::HttpServer` on
// 127.0.0.1:0 with a handler that records each request and answers as the test says. Thread-safe
// (the server's threads call `Handle`).
#pragma once

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

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

}  // namespace trainyard::testing
