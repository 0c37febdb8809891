// Reading another process's files under /proc, as recovery and adoption do: every failure is a
// value, never an exception. A process can exit between any two reads (and during one: the kernel
// then answers ESRCH, or an empty file for a zombie), and a reader that threw there once took the
// server down while it recovered (issue #31). Thread-safe: plain functions of the file system.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace trainyard::run::local {

// The bytes of `path` (e.g. "/proc/42/cmdline"), read with open(2) and read(2) to its end.
// NOT_FOUND when the file or its process is gone (ENOENT, ESRCH); UNAVAILABLE for any other
// failure to open or read it, with the system's reason.
Result<std::string> ReadProcFile(const std::string& path);

// The command line of `pid`, its NUL-separated words: empty for a zombie (a process that has
// exited but is not yet reaped) or a kernel thread. Errors as ReadProcFile: NOT_FOUND when
// there is no such process (any more).
Result<std::vector<std::string>> ProcessCommandLine(int pid);

// The words of a /proc/<pid>/cmdline text: NUL-separated, the last one NUL-terminated or not.
std::vector<std::string> SplitCommandLine(const std::string& text);

}  // namespace trainyard::run::local
