#include "os/random.h"

#include <cerrno>
#include <cstring>

#include <sys/random.h>

namespace trainyard::os {

Result<std::string> RandomBytes(std::size_t count) {
  std::string bytes(count, '\0');
  std::size_t filled = 0;
  while (filled < count) {
    const ssize_t got = getrandom(bytes.data() + filled, count - filled, 0);
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      return Status::Internal(std::string("getrandom: ") + std::strerror(errno));
    }
    filled += static_cast<std::size_t>(got);
  }
  return bytes;
}

}  // namespace trainyard::os
