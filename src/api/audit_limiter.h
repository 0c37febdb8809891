// A bound on the audit records of unauthenticated calls (issue #31): anyone who can reach the
// server can send requests with no token or a wrong one, and each is recorded in the named
// project's audit log. Per client address and project, at most `max_records` such records are
// kept in each `interval` (from the first record of that address and project); the rest are
// counted, and one summary record, "N more refused requests from ADDR since T", is written once
// the interval has ended: with the next unauthenticated call of any address (`Admit`), or on
// `TakeEnded`. Times come from the injected clock. Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "access/audit.h"
#include "base/clock.h"

namespace trainyard::server {

struct AuditLimits {
  int max_records = 10;  // full records per address and project and interval
  std::chrono::steady_clock::duration interval = std::chrono::minutes(1);
  // Addresses and projects tracked at once; past that, the calls of new ones are counted
  // together and summarised in the server-wide log (kServerWideProject) as from "other
  // addresses".
  std::size_t max_keys = 4096;
};

class UnauthenticatedAuditLimiter {
 public:
  UnauthenticatedAuditLimiter(const Clock& clock, AuditLimits limits);

  // The records to store for the unauthenticated call `event`, in order: the summaries of
  // intervals that have ended, then `event` itself unless its interval already holds
  // `max_records` (then it is only counted).
  std::vector<access::AuditEvent> Admit(access::AuditEvent event);

  // The summaries of intervals that have ended (their counters are forgotten).
  std::vector<access::AuditEvent> TakeEnded();

 private:
  struct Window {
    MonoTime start;
    WallTime start_wall;
    int recorded = 0;
    int suppressed = 0;
    access::AuditEvent last;  // the last suppressed call: what the summary names
  };
  using Key = std::pair<std::string, std::string>;  // caller address, project

  // Moves the summaries of ended windows to `out` and forgets those windows (mu_ held).
  void SweepLocked(MonoTime now, std::vector<access::AuditEvent>& out);
  access::AuditEvent SummaryOf(const Key& key, const Window& window) const;

  const Clock& clock_;
  const AuditLimits limits_;
  std::mutex mu_;
  std::map<Key, Window> windows_;
  std::deque<std::pair<MonoTime, Key>> starts_;  // each window's start, oldest first
  Window overflow_{};                            // calls of keys past max_keys
  bool overflowing_ = false;
};

}  // namespace trainyard::server
