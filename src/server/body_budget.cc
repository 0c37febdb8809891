#include "server/body_budget.h"

#include <fmt/format.h>

namespace trainyard::server {

Status BodyBudget::Refusal(std::uint64_t bytes) const {
  return Status::Unavailable(fmt::format(
      "The server is holding too many request bodies at once: {} more bytes would pass its limit "
      "of {} bytes of {} in flight. Retry shortly.",
      bytes, capacity_, what_));
}

}  // namespace trainyard::server
