// One HTTP/1.1 request to the trainyard server on its own connection, every step bounded by a
// deadline, and its answer whatever the status: the one transport of the command line.
// `RestClient` (rest_client.h) sends its JSON calls through it; the storage uploads use it
// directly for what `RestClient` does not give (their own Content-Type and headers, the
// `Location` header of a resumable session, its 308 answers). No answer at all (refused,
// unreachable, timed out) gives UNAVAILABLE (DEADLINE_EXCEEDED once connected) naming the server
// and how to start one. Thread-safe: a plain function.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "cli/client/rest_client.h"

namespace trainyard::cli {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpCall {
  std::string method;
  std::string target;  // path and query, relative to the server's base path
  HttpHeaders headers;
  std::string body;  // sent with its length; the Content-Type, if any, goes in `headers`
};

struct HttpReply {
  int status = 0;
  HttpHeaders headers;
  std::string body;

  // The first header named `name` (case-insensitive), or "" when there is none.
  std::string_view Header(std::string_view name) const;
};

// `call` by value: its body (up to a resumable chunk) is moved into the request, not copied.
Result<HttpReply> SendHttp(const ServerUrl& server, const RestOptions& options, HttpCall call);

}  // namespace trainyard::cli
