#include "cli/client/rpc_status.h"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/text.h"

namespace trainyard::cli {
namespace {

constexpr std::string_view kBadRequestType = "type.googleapis.com/google.rpc.BadRequest";
constexpr std::size_t kMaxQuotedBody = 200;

std::string StringAt(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<FieldViolation> ViolationsOf(const nlohmann::json& error) {
  std::vector<FieldViolation> violations;
  const auto details = error.find("details");
  if (details == error.end() || !details->is_array()) {
    return violations;
  }
  for (const nlohmann::json& detail : *details) {
    if (!detail.is_object() || StringAt(detail, "@type") != kBadRequestType) {
      continue;
    }
    const auto list = detail.find("fieldViolations");
    if (list == detail.end() || !list->is_array()) {
      continue;
    }
    for (const nlohmann::json& violation : *list) {
      if (violation.is_object()) {
        violations.push_back({StringAt(violation, "field"), StringAt(violation, "description")});
      }
    }
  }
  return violations;
}

// The body of a response that is not a google.rpc error, shortened for a message.
std::string BodyExcerpt(std::string_view body) {
  std::string text = Excerpt(body, kMaxQuotedBody);
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') {
      c = ' ';
    }
  }
  return text;
}

}  // namespace

std::optional<Code> CodeFromName(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(Code::kUnauthenticated); ++i) {
    const auto code = static_cast<Code>(i);
    if (CodeName(code) == name) {
      return code;
    }
  }
  return std::nullopt;
}

Code CodeFromHttpStatus(int http_status) {
  switch (http_status) {
    case 400:
      return Code::kInvalidArgument;
    case 401:
      return Code::kUnauthenticated;
    case 403:
      return Code::kPermissionDenied;
    case 404:
      return Code::kNotFound;
    case 409:
      return Code::kAborted;
    case 412:
      return Code::kFailedPrecondition;
    case 416:
      return Code::kOutOfRange;
    case 429:
      return Code::kResourceExhausted;
    case 499:
      return Code::kCancelled;
    case 501:
      return Code::kUnimplemented;
    case 503:
      return Code::kUnavailable;
    case 504:
      return Code::kDeadlineExceeded;
    default:
      break;
  }
  if (http_status >= 400 && http_status < 500) {
    return Code::kFailedPrecondition;
  }
  return http_status >= 500 && http_status < 600 ? Code::kInternal : Code::kUnknown;
}

Status StatusFromHttpError(int http_status, std::string_view body) {
  const nlohmann::json document = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  const bool is_rpc_error =
      document.is_object() && document.contains("error") && document["error"].is_object();
  if (!is_rpc_error) {
    std::string message =
        fmt::format("HTTP {} with a body that is not a google.rpc error", http_status);
    if (!body.empty()) {
      message += ": " + BodyExcerpt(body);
    }
    return Status::FromCode(CodeFromHttpStatus(http_status), std::move(message));
  }
  const nlohmann::json& error = document["error"];
  const Code code =
      CodeFromName(StringAt(error, "status")).value_or(CodeFromHttpStatus(http_status));
  std::string message = StringAt(error, "message");
  if (message.empty()) {
    message = fmt::format("HTTP {}", http_status);
  }
  return Status::FromCode(code == Code::kOk ? CodeFromHttpStatus(http_status) : code,
                          std::move(message), ViolationsOf(error));
}

}  // namespace trainyard::cli
