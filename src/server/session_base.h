// What http_server.cc keeps of each connection (`SessionBase`, which http_session.h's `Session`
// implements) and shares among them (`BodyBudgets`); internal to it.
#pragma once

#include <atomic>
#include <string>
#include <utility>

#include "server/body_budget.h"
#include "server/http_server.h"

namespace trainyard::server::internal {

// The server's totals of request bodies in flight, shared by its connections (http_server.h).
struct BodyBudgets {
  explicit BodyBudgets(const HttpServerOptions& options)
      : memory(options.max_body_bytes_in_flight, "request bodies held in memory"),
        spooled(options.max_spooled_bytes_in_flight, "request bodies spooled to disk") {}
  BodyBudget memory;
  BodyBudget spooled;
};

// What the server keeps of a connection: where it comes from, whether it may be given up for a
// newcomer, and a way to end it. Thread-safe.
class SessionBase {
 public:
  explicit SessionBase(std::string remote_address) : remote_address_(std::move(remote_address)) {}
  virtual ~SessionBase() = default;
  // From any thread: closes the connection, which ends whatever it was waiting for.
  virtual void Shutdown() = 0;

  const std::string& remote_address() const { return remote_address_; }
  // Whether the connection is closed or closing: it no longer counts against the limits.
  bool closing() const { return state_.load() == State::kClosing; }
  // Closes the connection if it is idle (waiting for a request head, or its TLS handshake) and has
  // never presented a valid token; whether it did. Never interrupts a request.
  bool TryEvict() {
    State idle = State::kIdle;
    if (authenticated_.load() || !state_.compare_exchange_strong(idle, State::kClosing)) {
      return false;
    }
    Shutdown();
    return true;
  }

 protected:
  enum class State { kIdle, kBusy, kClosing };
  // The strand's side of `TryEvict`: a head has arrived; false when the connection is closing.
  bool MarkBusy() {
    State idle = State::kIdle;
    return state_.compare_exchange_strong(idle, State::kBusy);
  }
  void MarkIdle() {
    State busy = State::kBusy;
    state_.compare_exchange_strong(busy, State::kIdle);
  }
  void MarkClosing() { state_.store(State::kClosing); }
  void MarkAuthenticated() { authenticated_.store(true); }  // only while busy

  const std::string remote_address_;  // the peer's IP address, as text

 private:
  std::atomic<State> state_{State::kIdle};
  std::atomic<bool> authenticated_{false};
};

}  // namespace trainyard::server::internal
