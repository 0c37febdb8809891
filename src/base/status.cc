#include "base/status.h"

#include <array>
#include <cstring>

namespace trainyard {

std::string_view CodeName(Code code) {
  static constexpr std::array<std::string_view, 17> kNames = {"OK",
                                                              "CANCELLED",
                                                              "UNKNOWN",
                                                              "INVALID_ARGUMENT",
                                                              "DEADLINE_EXCEEDED",
                                                              "NOT_FOUND",
                                                              "ALREADY_EXISTS",
                                                              "PERMISSION_DENIED",
                                                              "RESOURCE_EXHAUSTED",
                                                              "FAILED_PRECONDITION",
                                                              "ABORTED",
                                                              "OUT_OF_RANGE",
                                                              "UNIMPLEMENTED",
                                                              "INTERNAL",
                                                              "UNAVAILABLE",
                                                              "DATA_LOSS",
                                                              "UNAUTHENTICATED"};
  const auto index = static_cast<std::size_t>(code);
  return index < kNames.size() ? kNames[index] : "UNKNOWN";
}

Status::Status(Code code, std::string message, std::vector<FieldViolation> violations)
    : code_(code), message_(std::move(message)), violations_(std::move(violations)) {
  TY_CHECK(code_ != Code::kOk) << "an OK status carries no message";
}

Status Status::InvalidArgument(std::vector<FieldViolation> violations) {
  TY_CHECK(!violations.empty()) << "InvalidArgument needs at least one violation";
  std::string message =
      "Field: " + violations.front().field + " Error: " + violations.front().description;
  if (violations.size() > 1) {
    message += " (and " + std::to_string(violations.size() - 1) + " more)";
  }
  return Status(Code::kInvalidArgument, std::move(message), std::move(violations));
}

Status Status::InvalidArgument(std::string message) {
  return Status(Code::kInvalidArgument, std::move(message));
}
Status Status::NotFound(std::string message) {
  return Status(Code::kNotFound, std::move(message));
}
Status Status::AlreadyExists(std::string message) {
  return Status(Code::kAlreadyExists, std::move(message));
}
Status Status::FailedPrecondition(std::string message) {
  return Status(Code::kFailedPrecondition, std::move(message));
}
Status Status::Aborted(std::string message) {
  return Status(Code::kAborted, std::move(message));
}
Status Status::ResourceExhausted(std::string message) {
  return Status(Code::kResourceExhausted, std::move(message));
}
Status Status::Unavailable(std::string message) {
  return Status(Code::kUnavailable, std::move(message));
}
Status Status::Unimplemented(std::string message) {
  return Status(Code::kUnimplemented, std::move(message));
}
Status Status::Internal(std::string message) {
  return Status(Code::kInternal, std::move(message));
}
Status Status::Unauthenticated(std::string message) {
  return Status(Code::kUnauthenticated, std::move(message));
}
Status Status::PermissionDenied(std::string message) {
  return Status(Code::kPermissionDenied, std::move(message));
}
Status Status::DeadlineExceeded(std::string message) {
  return Status(Code::kDeadlineExceeded, std::move(message));
}
Status Status::OutOfRange(std::string message) {
  return Status(Code::kOutOfRange, std::move(message));
}

Status Status::FromCode(Code code, std::string message, std::vector<FieldViolation> violations) {
  return Status(code, std::move(message), std::move(violations));
}

std::string Status::ToString() const {
  if (ok()) {
    return "OK";
  }
  std::string out = std::string(CodeName(code_)) + ": " + message_;
  // Every violation when there are several; a single one only when the message does not already
  // say it (InvalidArgument(violations) words the message from it).
  const bool single_in_message =
      violations_.size() == 1 &&
      message_.find(violations_.front().description) != std::string::npos;
  if (!single_in_message) {
    for (const auto& v : violations_) {
      out += "\n  " + v.field + ": " + v.description;
    }
  }
  return out;
}

std::string Errno(int err) {
  return std::strerror(err);  // NOLINT(concurrency-mt-unsafe): glibc's returns static text
}

}  // namespace trainyard
