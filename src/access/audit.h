// Who did what (issue #17): one call the server records in its activity audit log, and that
// call as the AuditLog Google writes to `cloudaudit.googleapis.com%2Factivity` (the LogEntry's
// `protoPayload` and `resource`). Every mutating call is recorded whatever its outcome, and every
// refused call (401, 403) of any route; reads that succeed are not (that would be Google's
// data-access log). The store is store/audit_store.h, the recording api/audit_trail.h, the
// reading logging v2 entries:list. Pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace trainyard::access {

// The log's id, URL-encoded as it appears in a logName ("projects/p/logs/<id>").
inline constexpr std::string_view kAuditLogId = "cloudaudit.googleapis.com%2Factivity";
// The "project" of calls that name none (a refused server-wide call, a Kubernetes call across
// every namespace): read as `projects/-`, by a role that spans projects only.
inline constexpr std::string_view kServerWideProject = "-";

// One permission checked for the call (google.cloud.audit.AuthorizationInfo).
struct AuthorizationCheck {
  std::string resource;  // "projects/p/jobs/j", "projects/_/buckets/b"
  std::string permission;
  bool granted = false;

  friend bool operator==(const AuthorizationCheck&, const AuthorizationCheck&) = default;
};

// One recorded call.
struct AuditEvent {
  WallTime time{};
  std::string project;   // whose log it goes to; kServerWideProject when none
  std::string service;   // "ml.googleapis.com"
  std::string method;    // "google.cloud.ml.v1.JobService.CreateJob"
  std::string resource;  // "projects/p/jobs/j"
  // The caller: a token's name, "job:p/j" for a job's own token, "anonymous" when the server
  // checks no tokens; empty when the call was not authenticated (a 401).
  std::string principal;
  std::string caller_ip;
  std::string user_agent;
  std::vector<AuthorizationCheck> authorization;  // empty when nothing was checked
  Code code = Code::kOk;
  std::string message;  // the error's message; empty on success
};

// The principal of calls to a server that checks no tokens.
inline constexpr std::string_view kAnonymous = "anonymous";

// The google.rpc code an HTTP answer stands for (2xx and 3xx: OK).
Code CodeOfHttpStatus(int http_status);

// Whether the call failed: a failed call is an ERROR entry, a successful one NOTICE (as Google
// writes admin activity).
inline bool Failed(const AuditEvent& event) {
  return event.code != Code::kOk;
}

// The event as it is stored, one line of JSON: {"protoPayload":{AuditLog},"resource":{…}}, the
// LogEntry's fields less those its record gives (timestamp, severity, insertId, logName).
// Messages longer than kMaxAuditMessageBytes are cut (keeping valid UTF-8).
inline constexpr std::size_t kMaxAuditMessageBytes = 2048;
std::string EncodeAuditRecord(const AuditEvent& event);

}  // namespace trainyard::access
