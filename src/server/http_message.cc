#include "server/http_message.h"

namespace trainyard::server {

std::string_view HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) {
      return value;
    }
  }
  return {};
}

HttpResponse JsonResponse(std::string body, int status) {
  HttpResponse response;
  response.status = status;
  response.content_type = std::string(kJsonContentType);
  response.body = std::move(body);
  return response;
}

}  // namespace trainyard::server
