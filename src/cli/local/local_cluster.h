// Runs the processes of `trainyard local train` the way gcloud's `ai-platform local train` does
// (command_lib/ml_engine/local_train.py, docs/reference/ai-platform-training.md §8): the
// non-primary ones (parameter servers, workers, evaluators) in the background, then the primary in
// the foreground; the primary's exit code is the result, and the others are stopped when it ends.
//
// How, and where it differs from gcloud:
//   * Every process writes straight to the terminal (stdout/stderr inherited, as gcloud's
//     `Popen`). The primary stays in this process's group with stdin inherited, so Ctrl-C
//     reaches it from the terminal and a debugger in it can read the terminal. Each other
//     process leads its own process group with stdin from /dev/null, so stopping it stops what
//     it started too (gcloud walks the process tree with `ps` instead).
//   * SIGINT or SIGTERM to this process sends SIGTERM to the primary (gcloud's `Exec` handler);
//     its exit code, or 128 + the signal that ended it, is still the result.
//   * Stopping the others: SIGTERM to each group, up to `stop_grace` for them to exit (gcloud's
//     `_KillPID` waits 3 s per process), then SIGKILL to every group. All are reaped before
//     returning, so no child is left behind.
// Blocks SIGINT, SIGTERM and SIGCHLD in the calling thread while it runs (restoring the mask and
// consuming what arrived before returning); call it from the only thread of the process, or with
// those signals blocked in every other thread.
#pragma once

#include <chrono>
#include <vector>

#include "base/status.h"
#include "cli/local/child_process.h"

namespace trainyard::cli {

// `primary` runs in the foreground; each of `others` has `background` set by this function.
// Fails (after stopping what it had started) only when a process cannot be started.
Result<int> RunLocalCluster(const std::vector<ChildSpec>& others, ChildSpec primary,
                            std::chrono::milliseconds stop_grace = std::chrono::seconds(3));

}  // namespace trainyard::cli
