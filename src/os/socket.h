// What a connected socket has to read, looked at without taking it: the HTTP server's watch for
// a client that hung up during a streamed response (server/http_session.h). Thread-safe.
#pragma once

namespace trainyard::os {

enum class SocketPeek {
  kData,     // bytes are waiting
  kEnd,      // the peer closed its side
  kNothing,  // nothing yet (would block, or interrupted): look again when it is readable
  kError,    // the connection failed (reset, ...)
};

// recv(2) of one byte with MSG_PEEK | MSG_DONTWAIT on the socket `fd`.
SocketPeek PeekSocket(int fd);

}  // namespace trainyard::os
