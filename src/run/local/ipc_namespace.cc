#include "run/local/ipc_namespace.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace trainyard::run::local {
namespace {

// Whether `fd` is a namespace file (a mounted /proc/<pid>/ns/ipc), not a file left at its place.
bool IsNamespace(int fd) noexcept {
  struct statfs kind {};
  return fstatfs(fd, &kind) == 0 && kind.f_type == NSFS_MAGIC;
}

// EnterIpcNamespace's work under the lock.
int JoinOrMake(const char* path) noexcept {
  const int existing = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (existing >= 0) {
    const bool joinable = IsNamespace(existing);
    const int error = joinable && setns(existing, CLONE_NEWIPC) != 0 ? errno : 0;
    close(existing);
    if (joinable) {
      return error;
    }
  } else if (errno != ENOENT) {
    return errno;
  }
  // An empty file to mount on (one an earlier, failed try left is used again).
  const int made = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (made < 0) {
    return errno;
  }
  close(made);
  if (unshare(CLONE_NEWIPC) != 0 ||
      mount("/proc/self/ns/ipc", path, nullptr, MS_BIND, nullptr) != 0) {
    return errno;
  }
  return 0;
}

}  // namespace

std::string IpcNamespacePath(std::string_view private_root) {
  // A private directory's name is its absolute path's components joined by '_'
  // (run/local/sandbox.h): only a HOME of "/.ipc" would be given this one.
  std::string path(private_root);
  path += "/.ipc";
  return path;
}

int EnterIpcNamespace(const char* path, const char* lock_dir) noexcept {
  if (path == nullptr) {
    return unshare(CLONE_NEWIPC) != 0 ? errno : 0;
  }
  const int lock = open(lock_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (lock < 0) {
    return errno;
  }
  int error = flock(lock, LOCK_EX) != 0 ? errno : 0;
  if (error == 0) {
    error = JoinOrMake(path);
  }
  close(lock);  // releases the flock
  return error;
}

Status ReleaseIpcNamespace(std::string_view private_root) {
  const std::string path = IpcNamespacePath(private_root);
  if (umount2(path.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) != 0 && errno != EINVAL &&
      errno != ENOENT) {
    return Status::Internal("Cannot unmount the IPC namespace at " + path + ": " +
                            std::strerror(errno));
  }
  return Status();
}

}  // namespace trainyard::run::local
