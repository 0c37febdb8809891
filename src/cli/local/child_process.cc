#include "cli/local/child_process.h"

#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "os/command.h"
#include "os/spawn.h"

namespace trainyard::cli {
namespace {

// gcloud's wording when a program cannot be started: the errno of what failed.
Status CannotRun(const std::string& program, int error, const Status& status) {
  if (error == 0) {
    return status;
  }
  return Status::Internal(fmt::format("Cannot run [{}]: {}", program, std::strerror(error)));
}

// In the foreground group (Ctrl-C reaches it), stdin from /dev/null, run to its end.
Result<os::CommandResult> RunToEnd(const std::vector<std::string>& argv,
                                   os::CommandOptions options) {
  options.new_process_group = false;
  int error = 0;
  Result<os::CommandResult> run = os::RunCommand(argv, options, &error);
  if (!run.ok()) {
    return CannotRun(argv.empty() ? "" : argv.front(), error, run.status());
  }
  return run;
}

}  // namespace

Result<os::Child> StartChild(const ChildSpec& spec) {
  int error = 0;
  Result<os::Child> child =
      os::Spawn({.argv = spec.argv,
                 .env = os::MergeEnvironment(os::CurrentEnvironment(), spec.env),
                 .working_dir = spec.working_dir.string(),
                 .in = spec.background ? os::Stdio::Null() : os::Stdio::Inherit(),
                 .new_process_group = spec.background},
                &error);
  if (!child.ok()) {
    return CannotRun(spec.argv.empty() ? "" : spec.argv.front(), error, child.status());
  }
  return child;
}

Result<CapturedOutput> CaptureStdout(const std::vector<std::string>& argv) {
  Result<os::CommandResult> run = RunToEnd(argv, {.err = os::CommandOptions::Stderr::kDiscard});
  if (!run.ok()) {
    return run.status();
  }
  return CapturedOutput{.exit_code = os::ShellExitCode(run->status), .output = run->out};
}

Result<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                 const std::filesystem::path& working_dir) {
  Result<os::CommandResult> run = RunToEnd(
      argv, {.err = os::CommandOptions::Stderr::kMerge, .working_dir = working_dir.string()});
  if (!run.ok()) {
    return run.status();
  }
  return ProcessResult{.exit_code = os::ShellExitCode(run->status), .output = run->out};
}

}  // namespace trainyard::cli
