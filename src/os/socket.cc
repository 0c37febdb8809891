#include "os/socket.h"

#include <cerrno>

#include <sys/socket.h>

namespace trainyard::os {

SocketPeek PeekSocket(int fd) {
  char byte = 0;
  const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    return SocketPeek::kNothing;
  }
  if (n < 0) {
    return SocketPeek::kError;
  }
  return n == 0 ? SocketPeek::kEnd : SocketPeek::kData;
}

}  // namespace trainyard::os
