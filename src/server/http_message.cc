#include "server/http_message.h"

namespace trainyard::server {

HttpResponse JsonResponse(std::string body, int status) {
  HttpResponse response;
  response.status = status;
  response.content_type = std::string(kJsonContentType);
  response.body = std::move(body);
  return response;
}

}  // namespace trainyard::server
