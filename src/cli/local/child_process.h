// Child processes that share this process's terminal, for `trainyard local train`: started
// without a shell from an argument vector (looked up on PATH, as gcloud's `subprocess.Popen`
// does), with this process's environment plus a few variables, and stdout/stderr inherited so
// the trainer's output goes straight to the terminal. Unlike run/local/'s launcher (replicas of
// the server, whose output goes to log files), nothing here redirects output.
//
// Every child starts with an empty signal mask (this process may block signals while it waits)
// and SIGPIPE at its default action; descriptors from 3 up are not inherited (os/spawn.h, which
// does the starting). Thread-safe: plain functions of their arguments.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "os/spawn.h"

namespace trainyard::cli {

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no '/'
  // Set over this process's environment, replacing a variable of the same name.
  std::vector<std::pair<std::string, std::string>> env;
  std::filesystem::path working_dir;  // empty: this process's
  // A new process group led by the child (so the whole group can be signalled), with stdin from
  // /dev/null (a background group reading the terminal would be stopped). Otherwise the child
  // stays in this process's group, in the terminal's foreground, with stdin inherited.
  bool background = false;
};

// Starts `spec` and returns the child, which the caller must reap (os/process.h). INTERNAL
// "Cannot run [<argv[0]>]: <reason>" when it cannot be started.
Result<os::Child> StartChild(const ChildSpec& spec);

struct CapturedOutput {
  int exit_code = 0;   // as `ExitCodeOf`
  std::string output;  // stdout; stderr is discarded (/dev/null), as gcloud does for its probe
};

// Runs `argv` (PATH lookup as above) to completion in the foreground group with stdin from
// /dev/null; fails only when it cannot be started.
Result<CapturedOutput> CaptureStdout(const std::vector<std::string>& argv);

struct ProcessResult {
  int exit_code = 0;   // as `ExitCodeOf`
  std::string output;  // stdout and stderr, interleaved as written
};

// Runs `argv` to completion as `CaptureStdout` does, in `working_dir`, with stdout and stderr
// captured together (`trainyard`'s sdist build). Fails only when it cannot be started.
Result<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                 const std::filesystem::path& working_dir);

}  // namespace trainyard::cli
