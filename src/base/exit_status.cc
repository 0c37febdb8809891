#include "base/exit_status.h"

#include <array>
#include <csignal>  // the numbers only (SIGKILL, SIGHUP, ... as POSIX defines them)
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace trainyard {
namespace {

// The signals a replica is likely to die of; others are shown by number.
constexpr std::array<std::pair<int, std::string_view>, 10> kSignalNames = {{
    {SIGKILL, "SIGKILL"},
    {SIGTERM, "SIGTERM"},
    {SIGSEGV, "SIGSEGV"},
    {SIGABRT, "SIGABRT"},
    {SIGINT, "SIGINT"},
    {SIGHUP, "SIGHUP"},
    {SIGBUS, "SIGBUS"},
    {SIGFPE, "SIGFPE"},
    {SIGILL, "SIGILL"},
    {SIGPIPE, "SIGPIPE"},
}};

}  // namespace

std::string ExitStatus::Describe() const {
  if (!signaled) {
    return code == 0 ? "exited with status 0"
                     : fmt::format("exited with a non-zero status of {}", code);
  }
  for (const auto& [number, name] : kSignalNames) {
    if (number == signal) {
      return fmt::format("was terminated by signal {} ({})", signal, name);
    }
  }
  return fmt::format("was terminated by signal {}", signal);
}

}  // namespace trainyard
