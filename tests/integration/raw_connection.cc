#include "integration/raw_connection.h"

#include <array>
#include <cerrno>
#include <cstdint>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "support/wait.h"

namespace trainyard::testing {

RawConnection::RawConnection(int port, const char* from) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
  if (fd_ < 0) {
    return;
  }
  if (from != nullptr) {
    sockaddr_in source{};
    source.sin_family = AF_INET;
    if (::inet_pton(AF_INET, from, &source.sin_addr) != 1 ||
        ::bind(fd_, reinterpret_cast<sockaddr*>(&source), sizeof source) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

bool RawConnection::Send(std::string_view bytes) const {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool RawConnection::ReadAvailable(std::string& into) const {
  std::array<char, 16384> buffer{};
  for (;;) {
    const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), MSG_DONTWAIT);
    if (n > 0) {
      into.append(buffer.data(), static_cast<std::size_t>(n));
      continue;
    }
    return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
  }
}

bool RawConnection::ServerClosed() const {
  std::string dropped;
  return ReadAvailable(dropped);
}

std::string RawConnection::ReadUntilClosed(std::chrono::milliseconds deadline) const {
  std::string text;
  (void)WaitUntil([&] { return ReadAvailable(text); }, deadline);
  return text;
}

}  // namespace trainyard::testing
