// A small blocking JSON client for the trainyard API server, errors as `Status` values. Each
// call is one `SendHttp` (http_exchange.h): its own connection, every step bounded by a deadline.
//   * A 2xx answer gives the response body.
//   * Any other answer gives the google.rpc error it carries (rpc_status.h).
//   * No answer at all (refused, unreachable, timed out) gives UNAVAILABLE (DEADLINE_EXCEEDED
//     once connected) naming the server that was tried and how to start or choose one.
// `http://` and `https://` URLs (the certificate checked against `RestOptions::ca_file`, else the
// system's CAs, and the host name). Not thread-safe; cheap to make, so make one per thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace trainyard::cli {

// A parsed `--server` / $TRAINYARD_SERVER value, e.g. "http://127.0.0.1:8470/".
struct ServerUrl {
  std::string host;  // a name or an address; IPv6 literals without their brackets
  std::uint16_t port = 80;
  std::string base_path = "/";  // always ends with '/'; API paths are appended to it
  std::string text;             // as given, for messages
  bool tls = false;             // https://: the server's certificate is verified

  friend bool operator==(const ServerUrl&, const ServerUrl&) = default;
};

// "http[s]://HOST[:PORT][/PATH]" ("[::1]" for IPv6); INVALID_ARGUMENT otherwise.
Result<ServerUrl> ParseServerUrl(std::string_view url);

// RFC 3986 percent-encoding of everything but unreserved characters: a path segment or a query
// value.
std::string PercentEncode(std::string_view text);

struct RestOptions {
  // Sent as `Authorization: Bearer <token>` when not empty (a server with --auth tokens).
  std::string bearer_token;
  // For https://: the CA certificates (PEM) the server's certificate must chain to; empty: the
  // system's.
  std::string ca_file;
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds response_timeout{60'000};  // writing the request, reading the reply
};

class RestClient {
 public:
  explicit RestClient(ServerUrl server, RestOptions options = {});

  // A client for `url` (`ParseServerUrl`'s errors).
  static Result<RestClient> ForUrl(std::string_view url, RestOptions options = {});

  // Sends `method` to `path` (relative to `base_path`, e.g. "v1/projects/p/jobs?pageSize=100")
  // with `body` as JSON (none when empty) and returns the body of a 2xx answer.
  Result<std::string> Call(std::string_view method, std::string_view path,
                           std::string_view body = {}) const;

 private:
  ServerUrl server_;
  RestOptions options_;
};

}  // namespace trainyard::cli
