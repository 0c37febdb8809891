#include "access/audit.h"

#include <array>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/text.h"
#include "base/utf8.h"

namespace trainyard::access {
namespace {

// HTTP statuses and the google.rpc codes they stand for (google/rpc/code.proto's mapping).
struct HttpCode {
  int http_status;
  Code code;
};
constexpr std::array kHttpCodes = {
    HttpCode{400, Code::kInvalidArgument},  HttpCode{401, Code::kUnauthenticated},
    HttpCode{403, Code::kPermissionDenied}, HttpCode{404, Code::kNotFound},
    HttpCode{405, Code::kUnimplemented},    HttpCode{409, Code::kAborted},
    HttpCode{411, Code::kInvalidArgument},  HttpCode{412, Code::kFailedPrecondition},
    HttpCode{413, Code::kOutOfRange},       HttpCode{416, Code::kOutOfRange},
    HttpCode{422, Code::kInvalidArgument},  HttpCode{429, Code::kResourceExhausted},
    HttpCode{499, Code::kCancelled},        HttpCode{501, Code::kUnimplemented},
    HttpCode{503, Code::kUnavailable},      HttpCode{504, Code::kDeadlineExceeded},
};

}  // namespace

Code CodeOfHttpStatus(int http_status) {
  if (http_status < 400) {
    return Code::kOk;
  }
  for (const HttpCode& row : kHttpCodes) {
    if (row.http_status == http_status) {
      return row.code;
    }
  }
  return http_status < 500 ? Code::kFailedPrecondition : Code::kInternal;
}

std::string EncodeAuditRecord(const AuditEvent& event) {
  using nlohmann::ordered_json;
  ordered_json authentication = ordered_json::object();
  if (!event.principal.empty()) {
    authentication["principalEmail"] = event.principal;
  }
  ordered_json payload = {
      {"@type", "type.googleapis.com/google.cloud.audit.AuditLog"},
      {"status", ordered_json::object()},
      {"authenticationInfo", std::move(authentication)},
      {"requestMetadata", ordered_json::object()},
      {"serviceName", event.service},
      {"methodName", event.method},
  };
  if (event.code != Code::kOk) {
    payload["status"] = {{"code", static_cast<int>(event.code)},
                         {"message", ToValidUtf8(Excerpt(event.message, kMaxAuditMessageBytes))}};
  }
  ordered_json& metadata = payload["requestMetadata"];
  if (!event.caller_ip.empty()) {
    metadata["callerIp"] = event.caller_ip;
  }
  if (!event.user_agent.empty()) {
    metadata["callerSuppliedUserAgent"] = ToValidUtf8(Excerpt(event.user_agent, 512));
  }
  if (!event.authorization.empty()) {
    ordered_json& checks = payload["authorizationInfo"] = ordered_json::array();
    for (const AuthorizationCheck& check : event.authorization) {
      checks.push_back({{"resource", check.resource},
                        {"permission", check.permission},
                        {"granted", check.granted}});
    }
  }
  payload["resourceName"] = ToValidUtf8(event.resource);
  ordered_json record = {
      {"protoPayload", std::move(payload)},
      {"resource",
       {{"type", "audited_resource"},
        {"labels",
         {{"service", event.service}, {"method", event.method}, {"project_id", event.project}}}}},
  };
  return record.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace trainyard::access
