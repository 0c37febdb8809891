// Bytes from the kernel's random source (getrandom), for secrets: access tokens and keys.
#pragma once

#include <cstddef>
#include <string>

#include "base/status.h"

namespace trainyard::os {

// `count` random bytes; INTERNAL when the kernel refuses.
Result<std::string> RandomBytes(std::size_t count);

}  // namespace trainyard::os
