// trainyard-replica: see run/local/supervisor.h.
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "base/clock.h"
#include "run/local/supervisor.h"

int main(int argc, char** argv) {
  using trainyard::run::local::EndLike;
  using trainyard::run::local::ParseSupervisorArgs;
  using trainyard::run::local::Supervise;

  const std::vector<std::string> args(argv + 1, argv + argc);
  std::optional<trainyard::run::local::SupervisorArgs> parsed = ParseSupervisorArgs(args);
  if (!parsed.has_value()) {
    constexpr std::string_view kUsage =
        "usage: trainyard-replica --log PATH --exit PATH [--container NAME] [--user UID:GID] "
        "[--env-fd FD] [--hide DIR] [--bind PATH]... [--ro-bind PATH]... [--private DIR]... "
        "[--private-root DIR] [--held] -- "
        "PROGRAM [ARGS...]\n";
    [[maybe_unused]] ssize_t wrote = write(STDERR_FILENO, kUsage.data(), kUsage.size());
    return 2;
  }
  const trainyard::SystemClock clock;
  EndLike(Supervise(*parsed, clock));
}
