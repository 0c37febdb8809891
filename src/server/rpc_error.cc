#include "server/rpc_error.h"

#include <cstddef>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/text.h"

namespace trainyard::server {
namespace {

// Bounds on what an error body repeats of the request (a value quoted in a message, one violation
// per bad entry), so that a 10 MB label value or 100,000 bad labels get an answer of a few KiB:
// the bytes of the message and of each description, and the violations listed.
constexpr std::size_t kMaxTextBytes = 4096;
constexpr std::size_t kMaxViolations = 100;

}  // namespace

int HttpStatusFor(Code code) {
  switch (code) {
    case Code::kOk:
      return 200;
    case Code::kInvalidArgument:
    case Code::kFailedPrecondition:
    case Code::kOutOfRange:
      return 400;
    case Code::kUnauthenticated:
      return 401;
    case Code::kPermissionDenied:
      return 403;
    case Code::kNotFound:
      return 404;
    case Code::kAlreadyExists:
    case Code::kAborted:
      return 409;
    case Code::kResourceExhausted:
      return 429;
    case Code::kCancelled:
      return 499;
    case Code::kUnimplemented:
      return 501;
    case Code::kUnavailable:
      return 503;
    case Code::kDeadlineExceeded:
      return 504;
    case Code::kUnknown:
    case Code::kInternal:
    case Code::kDataLoss:
      return 500;
  }
  return 500;
}

std::string RpcErrorBody(int http_status, const Status& status) {
  TY_CHECK(!status.ok()) << "an error body needs an error status";
  nlohmann::ordered_json error = {
      {"code", http_status},
      {"message", Excerpt(status.message(), kMaxTextBytes)},
      {"status", std::string(CodeName(status.code()))},
  };
  if (!status.violations().empty()) {
    // RESOURCE_EXHAUSTED's violations are quotas (sched/quota_check.h): a QuotaFailure whose
    // subject is the field; any other code's are a BadRequest's field violations.
    const bool quota = status.code() == Code::kResourceExhausted;
    auto violations = nlohmann::ordered_json::array();
    const std::size_t count = status.violations().size();
    for (std::size_t i = 0; i < count && i < kMaxViolations; ++i) {
      const FieldViolation& v = status.violations()[i];
      violations.push_back({{quota ? "subject" : "field", Excerpt(v.field, kMaxTextBytes)},
                            {"description", Excerpt(v.description, kMaxTextBytes)}});
    }
    if (count > kMaxViolations) {
      violations.push_back(
          {{quota ? "subject" : "field", ""},
           {"description", fmt::format("{} more violations, not listed", count - kMaxViolations)}});
    }
    error["details"] = nlohmann::ordered_json::array(
        {{{"@type", quota ? "type.googleapis.com/google.rpc.QuotaFailure"
                          : "type.googleapis.com/google.rpc.BadRequest"},
          {quota ? "violations" : "fieldViolations", std::move(violations)}}});
  }
  // Replace invalid UTF-8 (echoed user input) rather than throw.
  return nlohmann::ordered_json{{"error", std::move(error)}}.dump(
      -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

HttpResponse ErrorResponse(const Status& status) {
  return ErrorResponse(HttpStatusFor(status.code()), status);
}

HttpResponse ErrorResponse(int http_status, const Status& status) {
  return JsonResponse(RpcErrorBody(http_status, status), http_status);
}

}  // namespace trainyard::server
