#include "api/audit_limiter.h"

#include <fmt/format.h>

#include "base/status.h"
#include "base/time_format.h"

namespace trainyard::server {

using access::AuditEvent;

UnauthenticatedAuditLimiter::UnauthenticatedAuditLimiter(const Clock& clock, AuditLimits limits)
    : clock_(clock), limits_(limits) {}

std::vector<AuditEvent> UnauthenticatedAuditLimiter::Admit(AuditEvent event) {
  const MonoTime now = clock_.Monotonic();
  std::vector<AuditEvent> out;
  std::lock_guard lock(mu_);
  SweepLocked(now, out);
  Key key(event.caller_ip, event.project);
  auto it = windows_.find(key);
  if (it == windows_.end()) {
    if (windows_.size() >= limits_.max_keys) {
      if (!overflowing_) {
        overflow_ = Window{.start = now, .start_wall = clock_.Now()};
        overflowing_ = true;
      }
      ++overflow_.suppressed;
      overflow_.last = std::move(event);
      return out;
    }
    starts_.emplace_back(now, key);
    it = windows_.emplace(std::move(key), Window{.start = now, .start_wall = clock_.Now()}).first;
  }
  Window& window = it->second;
  if (window.recorded < limits_.max_records) {
    ++window.recorded;
    out.push_back(std::move(event));
  } else {
    ++window.suppressed;
    window.last = std::move(event);
  }
  return out;
}

std::vector<AuditEvent> UnauthenticatedAuditLimiter::TakeEnded() {
  const MonoTime now = clock_.Monotonic();
  std::vector<AuditEvent> out;
  std::lock_guard lock(mu_);
  SweepLocked(now, out);
  return out;
}

void UnauthenticatedAuditLimiter::SweepLocked(MonoTime now, std::vector<AuditEvent>& out) {
  while (!starts_.empty() && now - starts_.front().first >= limits_.interval) {
    const auto found = windows_.find(starts_.front().second);
    if (found != windows_.end()) {
      if (found->second.suppressed > 0) {
        out.push_back(SummaryOf(found->first, found->second));
      }
      windows_.erase(found);
    }
    starts_.pop_front();
  }
  if (overflowing_ && now - overflow_.start >= limits_.interval) {
    out.push_back(SummaryOf(Key("", access::kServerWideProject), overflow_));
    overflowing_ = false;
    overflow_ = Window{};
  }
}

AuditEvent UnauthenticatedAuditLimiter::SummaryOf(const Key& key, const Window& window) const {
  AuditEvent summary = window.last;
  const std::string from = key.first.empty() ? "other addresses" : key.first;
  summary.time = clock_.Now();
  summary.project = key.second;
  summary.caller_ip = key.first;
  summary.principal.clear();
  summary.authorization.clear();
  summary.code = Code::kUnauthenticated;
  summary.message = fmt::format("{} more refused requests from {} since {}", window.suppressed,
                                from, FormatTimestamp(window.start_wall));
  return summary;
}

}  // namespace trainyard::server
