#include "sched/program.h"

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "os/command.h"
#include "os/spawn.h"

namespace trainyard::sched::internal {

Result<ProgramOutput> RunProgram(const std::vector<std::string>& argv, int idle_timeout_ms) {
  int start_errno = 0;
  Result<os::CommandResult> run =
      os::RunCommand(argv,
                     {.timeout = std::chrono::milliseconds(idle_timeout_ms),
                      .idle_timeout = true,
                      .max_output = std::size_t{1} << 20},
                     &start_errno);
  if (!run.ok()) {
    if (start_errno == ENOENT && !argv.empty()) {
      return Status::NotFound(fmt::format("{} was not found", argv[0]));
    }
    return run.status();
  }
  return ProgramOutput{
      .exit_code = os::ShellExitCode(run->status), .out = run->out, .err = run->err};
}

}  // namespace trainyard::sched::internal
