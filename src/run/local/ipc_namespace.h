// A job's System V IPC objects and POSIX message queues, kept from every other job's (issue #31).
// The run-as user is the same for every job, so a segment one job makes with mode 0600 would be
// open to all of them in the machine's IPC namespace. Under a view (run/file_view.h) each job
// has an IPC namespace of its own instead, which all its replicas share (as they share its
// /dev/shm): the first replica to start makes it and mounts it at `IpcNamespacePath(private
// root)`, the next ones join it there, and the mount keeps it (and what the job made in it)
// until the job ends and the server unmounts it. A view without a private root (pip) gets a new
// namespace of its own, gone with its last process.
// Internal to run/ and to the executor's clean-up.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace trainyard::run::local {

// Where the IPC namespace of the job whose private directories are at `private_root` is mounted.
std::string IpcNamespacePath(std::string_view private_root);

// Puts the calling process in the job's IPC namespace: joins the one mounted at `path`, or, when
// nothing is mounted there yet, makes a new one and mounts it there (holding an exclusive flock on
// `lock_dir`, the private root, meanwhile, so that replicas starting together make one). A null
// `path`: a new namespace of the caller's own, mounted nowhere. Call it as root before the mount
// namespace is unshared, so that the mount is the machine's and the job's next replica finds it.
// Returns 0 or the errno of the step that failed. Async-signal-safe.
int EnterIpcNamespace(const char* path, const char* lock_dir) noexcept;

// Unmounts the job's IPC namespace (what the job made in it goes with it once no process is left
// in it), so that its private root can be removed. OK when nothing is mounted there; INTERNAL,
// naming the path, when the unmount fails.
Status ReleaseIpcNamespace(std::string_view private_root);

}  // namespace trainyard::run::local
