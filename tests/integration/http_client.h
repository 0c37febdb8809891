// A small blocking HTTP/1.1 client for tests, on Beast. Every step is bounded
// by a deadline (10 s) so a broken server fails the test instead of hanging it. Not thread-safe:
// use one client per thread.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainyard::testing {

struct ClientResponse {
  int status = 0;  // 0 when no response could be read; `body` then says why
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  bool keep_alive = false;

  std::string Header(std::string_view name) const;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

class HttpClient {
 public:
  explicit HttpClient(int port, std::string host = "127.0.0.1",
                      std::chrono::milliseconds deadline = std::chrono::seconds(10));
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // One request on this client's keep-alive connection (opened on first use, and again after
  // the server closed it; a request that fails on a reused connection before any answer is sent
  // once more on a fresh one, as the server closes idle connections). A body is sent with
  // `Content-Type: application/json` unless `headers` names another.
  ClientResponse Send(std::string_view method, std::string_view target, std::string_view body = "",
                      const Headers& headers = {});
  ClientResponse Get(std::string_view target) { return Send("GET", target); }
  ClientResponse Post(std::string_view target, std::string_view body) {
    return Send("POST", target, body);
  }

  // Writes `bytes` verbatim on a new connection and reads one response.
  ClientResponse SendRaw(std::string_view bytes) { return SendRaw(bytes, 1).back(); }
  // The same, reading `count` responses (interim "100 Continue" ones included); a response that
  // could not be read has status 0 and ends the list.
  std::vector<ClientResponse> SendRaw(std::string_view bytes, int count);

  // Opens a connection, writes `bytes` (maybe a partial request), then waits for the server to
  // close it. True when it did before the deadline.
  bool ServerCloses(std::string_view bytes);

  // How many TCP connections this client has opened so far (keep-alive check).
  int connections_opened() const { return connections_opened_; }

 private:
  struct Connection;
  ClientResponse SendOnce(std::string_view method, std::string_view target, std::string_view body,
                          const Headers& headers);
  std::unique_ptr<Connection> connection_;
  std::string host_;
  int port_;
  std::chrono::milliseconds deadline_;
  int connections_opened_ = 0;
};

}  // namespace trainyard::testing
