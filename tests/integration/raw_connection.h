// A plain loopback TCP connection for transport tests that must misbehave as a client would:
// hold a connection idle, promise a body and not send it, read what arrives without blocking.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>

namespace trainyard::testing {

class RawConnection {
 public:
  // Connects to 127.0.0.1:`port`, from loopback address `from` when given ("127.0.0.2");
  // `ok()` is false when that failed.
  explicit RawConnection(int port, const char* from = nullptr);
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  RawConnection(RawConnection&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  ~RawConnection();

  bool ok() const { return fd_ >= 0; }
  // Writes all of `bytes` (blocking); false when the connection refused them.
  bool Send(std::string_view bytes) const;
  // Appends what has arrived to `into` without waiting; true once the server has closed the
  // connection (or reset it).
  bool ReadAvailable(std::string& into) const;
  // Whether the server has closed the connection (what it sent before is read and dropped).
  bool ServerClosed() const;
  // What the server sends until it closes the connection, waiting at most `deadline`.
  std::string ReadUntilClosed(std::chrono::milliseconds deadline = std::chrono::seconds(10)) const;
  int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace trainyard::testing
