// HTTP requests and responses as plain values, so that handlers, the router and tests need no
// Beast headers. `http_server.cc` converts between these and Beast's messages.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "os/unique_fd.h"

namespace trainyard::server {

struct HttpRequest {
  std::string method;        // "GET", "POST", … as sent (methods are case-sensitive)
  std::string target;        // the raw request-target, e.g. "/v1/projects/p/jobs?alt=json"
  std::string content_type;  // the Content-Type header; empty when absent
  std::string body;
  // Every header as received, names in lower case.
  std::vector<std::pair<std::string, std::string>> headers;
  // For a request whose body was spooled to disk (`HttpServerOptions::spool_prefixes`): the file
  // holding it (`body` is then empty). The server removes it after the handler returns, unless
  // the handler renamed it away.
  std::string body_file;
  // The peer's IP address ("127.0.0.1", "::1"); empty when unknown (a request made in-process).
  std::string remote_address;

  // The value of header `name` (lower case); empty when absent.
  std::string_view Header(std::string_view name) const;
};

// A byte range of a file sent as a response body, read while it is sent.
struct FileSlice {
  std::shared_ptr<const os::UniqueFd> file;  // opened for reading (a duplicate is sent from)
  std::string name;                          // what errors call it
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

// A response body produced while it is sent (a Kubernetes watch, `kubectl logs -f`), sent with
// chunked transfer encoding until it ends or the client goes away.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // Called on the connection's strand (never concurrently), about every `poll_interval` while
  // nothing is ready: appends what is ready to `out` without blocking, and returns false once
  // the stream has ended (after appending its last bytes). Dropped when the client goes away.
  virtual bool Poll(std::string& out) = 0;
};

struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, e.g. "Allow"
  std::string route;  // the route that answered, a metrics label; set by the router
  // When set, the body is this slice of a file (large downloads never sit in memory) and `body`
  // is ignored. A file that cannot be opened is answered with a 500 instead.
  std::optional<FileSlice> body_file;
  // When set, the body is this stream (`body` and `body_file` are ignored) and the connection
  // is closed after it.
  std::shared_ptr<ResponseStream> stream;
  std::chrono::milliseconds poll_interval{200};
};

inline constexpr std::string_view kJsonContentType = "application/json; charset=UTF-8";

// A 200 (or `status`) response carrying a JSON document.
HttpResponse JsonResponse(std::string body, int status = 200);

}  // namespace trainyard::server
