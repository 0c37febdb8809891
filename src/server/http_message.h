// HTTP requests and responses as plain values, so that handlers, the router and tests need no
// Beast headers. `http_server.cc` converts between these and Beast's messages.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainyard::server {

struct HttpRequest {
  std::string method;        // "GET", "POST", … as sent (methods are case-sensitive)
  std::string target;        // the raw request-target, e.g. "/v1/projects/p/jobs?alt=json"
  std::string content_type;  // the Content-Type header; empty when absent
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, e.g. "Allow"
  std::string route;  // the route that answered, a metrics label; set by the router
};

inline constexpr std::string_view kJsonContentType = "application/json; charset=UTF-8";

// A 200 (or `status`) response carrying a JSON document.
HttpResponse JsonResponse(std::string body, int status = 200);

}  // namespace trainyard::server
