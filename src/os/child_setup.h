// What a forked child does between fork and exec (os/spawn.h's forked path, and the replica
// supervisor before its trainer): only async-signal-safe system calls, since the parent may have
// had other threads.
#pragma once

namespace trainyard::os {

// Every signal at its default action, glibc's own two included (glibc's sigaction refuses them,
// and posix_spawn from a threaded process leaves them ignored).
void DefaultAllSignals() noexcept;

// Every descriptor from 3 up is closed by the coming exec.
void CloseOthersOnExec() noexcept;

// Every descriptor above `fd` is closed now: for a forked child that never execs.
void CloseAllAbove(int fd) noexcept;

// Drops every supplementary group, then sets the real, effective and saved group and user ids
// (group first: without privilege it can no longer be changed). Returns 0, or the errno of the
// call that failed. Async-signal-safe (raw system calls, this thread only: call it in a child
// between fork and exec). The parent-death signal is cleared by the switch: set it after.
int SwitchToUser(unsigned uid, unsigned gid) noexcept;

}  // namespace trainyard::os
