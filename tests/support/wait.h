// Waiting in tests: for a condition, never for a length of time (STYLE.md §7).
//
// WaitUntil is for what a test can only observe by looking: another program's state (a process
// list, podman's containers, Slurm's queue, /proc), a file, a server's table. It checks at once,
// then again after pauses that grow from 1 ms to 50 ms, so a condition that holds soon is seen
// soon and one that takes seconds costs little CPU. What can signal (a pidfd, a pipe, a condition
// variable, a latch) is waited on directly instead. This is the one place tests pause: a pause
// anywhere else under tests/ fails scripts/check_layers.sh.
#pragma once

#include <chrono>
#include <functional>

namespace trainyard::testing {

// Whether `condition` holds within `deadline` (checked at least once, and once more at the end).
bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds deadline);

}  // namespace trainyard::testing
