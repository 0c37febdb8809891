// Errors as values: google.rpc canonical codes with field-level detail.
//
// `Status` is what every fallible function in trainyard returns; `Result<T>` carries either a
// value or a non-OK `Status`. Only `server/` maps codes to HTTP. Both types are cheap to move and
// safe to use from any thread (they are plain values).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/check.h"

namespace trainyard {

// google.rpc.Code, with the numbers the wire format uses.
enum class Code : std::uint8_t {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// The canonical name, e.g. "INVALID_ARGUMENT", as google.rpc.Status.status spells it.
std::string_view CodeName(Code code);

// The C library's words for the errno value `err`, e.g. "No such file or directory".
std::string Errno(int err);

// One wrong field of a request (google.rpc.BadRequest.FieldViolation).
struct FieldViolation {
  std::string field;  // request path, e.g. "trainingInput.workerConfig.acceleratorConfig.count"
  std::string description;  // what we got and what is accepted

  friend bool operator==(const FieldViolation&, const FieldViolation&) = default;
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK

  static Status InvalidArgument(std::vector<FieldViolation> violations);
  static Status InvalidArgument(std::string message);
  static Status NotFound(std::string message);
  static Status AlreadyExists(std::string message);
  static Status FailedPrecondition(std::string message);
  static Status Aborted(std::string message);
  static Status ResourceExhausted(std::string message);
  static Status Unavailable(std::string message);
  static Status Unimplemented(std::string message);
  static Status Internal(std::string message);
  static Status Unauthenticated(std::string message);
  static Status PermissionDenied(std::string message);
  static Status DeadlineExceeded(std::string message);
  static Status OutOfRange(std::string message);
  // Any non-OK code, e.g. one read back from a google.rpc error body. Unlike
  // `InvalidArgument(violations)`, `message` is kept as given.
  static Status FromCode(Code code, std::string message,
                         std::vector<FieldViolation> violations = {});

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  // For INVALID_ARGUMENT built from violations: "Field: <f> Error: <d>" for the first one, and a
  // count of the others, as Google's services word it.
  const std::string& message() const { return message_; }
  std::span<const FieldViolation> violations() const { return violations_; }

  // "INVALID_ARGUMENT: <message>" plus one line per violation; for logs and CLI output.
  std::string ToString() const;

  friend bool operator==(const Status&, const Status&) = default;

 private:
  Status(Code code, std::string message, std::vector<FieldViolation> violations = {});

  Code code_ = Code::kOk;
  std::string message_;
  std::vector<FieldViolation> violations_;
};

// A `T` or a non-OK `Status`. Constructing from an OK status is a bug (checked).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : value_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    TY_CHECK(!std::get<Status>(value_).ok()) << "Result built from an OK status";
  }

  bool ok() const { return std::holds_alternative<T>(value_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(value_);
  }

  T& value() & { return checked(); }
  const T& value() const& { return checked(); }
  T&& value() && { return std::move(checked()); }
  T& operator*() & { return checked(); }
  const T& operator*() const& { return checked(); }
  T&& operator*() && { return std::move(checked()); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &checked(); }

 private:
  T& checked() {
    TY_CHECK(ok()) << "value() of an error Result: " << std::get<Status>(value_).ToString();
    return std::get<T>(value_);
  }
  const T& checked() const {
    TY_CHECK(ok()) << "value() of an error Result: " << std::get<Status>(value_).ToString();
    return std::get<T>(value_);
  }

  std::variant<T, Status> value_;
};

}  // namespace trainyard

// Returns the status of `expr` from the enclosing function when it is not OK.
#define TY_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::trainyard::Status ty_status_ = (expr); \
    if (!ty_status_.ok())                    \
      return ty_status_;                     \
  } while (false)
