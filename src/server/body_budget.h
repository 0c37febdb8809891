// A total of bytes that request bodies may hold at once across all connections (issue #31): the
// per-request limits alone let 512 connections hold 512 in-memory bodies of 10 MiB (5 GiB of
// memory), or fill the spool disk with concurrent uploads. A request holds a `Reservation` of its
// body's bytes (its declared length up front, or more as a chunked body arrives) for as long as
// the body is in flight; the reservation gives its bytes back when it is released or destroyed,
// so every way a request ends (answered, failed, timed out, its client gone, the server stopped)
// returns them. Thread-safe: one counter, changed with compare-and-swap; a `Reservation` itself
// belongs to one thread (a connection's strand) at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "base/status.h"

namespace trainyard::server {

class BodyBudget {
 public:
  // `capacity` bytes at most held at once; `what` names them in refusals ("request bodies held
  // in memory").
  BodyBudget(std::uint64_t capacity, std::string what)
      : capacity_(capacity), what_(std::move(what)) {}
  BodyBudget(const BodyBudget&) = delete;
  BodyBudget& operator=(const BodyBudget&) = delete;

  // Bytes of the budget held by one request; empty (0 bytes, no budget) when default-made or
  // released. Move-only; the budget must outlive it.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept
        : budget_(std::exchange(other.budget_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
    Reservation& operator=(Reservation&& other) noexcept {
      if (this != &other) {
        Release();
        budget_ = std::exchange(other.budget_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
      }
      return *this;
    }
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;
    ~Reservation() { Release(); }

    std::uint64_t bytes() const { return bytes_; }
    // Holds at least `total` bytes in all, taking the difference from the budget; false (the
    // reservation unchanged) when the budget cannot hold it. Always true when `total` is no more
    // than `bytes()`, and false on an empty reservation asked for more.
    bool GrowTo(std::uint64_t total) {
      if (total <= bytes_) {
        return true;
      }
      if (budget_ == nullptr || !budget_->Take(total - bytes_)) {
        return false;
      }
      bytes_ = total;
      return true;
    }
    // Gives the bytes back; the reservation is empty after. Idempotent.
    void Release() {
      if (budget_ != nullptr) {
        budget_->Give(bytes_);
      }
      budget_ = nullptr;
      bytes_ = 0;
    }

   private:
    friend class BodyBudget;
    Reservation(BodyBudget* budget, std::uint64_t bytes) : budget_(budget), bytes_(bytes) {}

    BodyBudget* budget_ = nullptr;
    std::uint64_t bytes_ = 0;
  };

  // A reservation of `bytes` (0 is allowed: a chunked body, grown as it arrives), or none when
  // what is left of the budget cannot hold them.
  std::optional<Reservation> TryReserve(std::uint64_t bytes) {
    if (!Take(bytes)) {
      return std::nullopt;
    }
    return Reservation(this, bytes);
  }

  std::uint64_t capacity() const { return capacity_; }
  std::uint64_t in_use() const { return used_.load(); }

  // UNAVAILABLE for a request whose `bytes` do not fit (the budget is full now, not the request
  // too large): names the limit and says to retry.
  Status Refusal(std::uint64_t bytes) const;

 private:
  bool Take(std::uint64_t bytes) {
    std::uint64_t used = used_.load();
    do {
      if (bytes > capacity_ - used) {  // `used` never exceeds `capacity_`: no overflow
        return false;
      }
    } while (!used_.compare_exchange_weak(used, used + bytes));
    return true;
  }
  void Give(std::uint64_t bytes) { used_.fetch_sub(bytes); }

  const std::uint64_t capacity_;
  const std::string what_;
  std::atomic<std::uint64_t> used_{0};
};

}  // namespace trainyard::server
