#include "os/child_setup.h"

#include <cerrno>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace trainyard::os {

// The kernel's struct is a handler, then flags, restorer and mask, all zero here.
void DefaultAllSignals() noexcept {
  struct KernelSigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)();
    unsigned long mask;
  };
  const KernelSigaction default_action{.handler = SIG_DFL};
  for (int signal = 1; signal < NSIG; ++signal) {
    if (signal != SIGKILL && signal != SIGSTOP) {
      syscall(SYS_rt_sigaction, signal, &default_action, nullptr, sizeof(default_action.mask));
    }
  }
}

void CloseOthersOnExec() noexcept {
  if (close_range(STDERR_FILENO + 1, ~0U, CLOSE_RANGE_CLOEXEC) == 0) {
    return;
  }
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  for (rlim_t fd = STDERR_FILENO + 1; fd < limit.rlim_cur; ++fd) {
    fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  }
}

void CloseAllAbove(int fd) noexcept {
  if (close_range(static_cast<unsigned>(fd) + 1, ~0U, 0) == 0) {
    return;
  }
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  for (rlim_t other = static_cast<rlim_t>(fd) + 1; other < limit.rlim_cur; ++other) {
    close(static_cast<int>(other));
  }
}

int SwitchToUser(unsigned uid, unsigned gid) noexcept {
  // Raw system calls: glibc's wrappers would try to change every thread of the process, which a
  // forked child of a threaded server must not attempt.
  if (syscall(SYS_setgroups, 0, nullptr) != 0 || syscall(SYS_setresgid, gid, gid, gid) != 0 ||
      syscall(SYS_setresuid, uid, uid, uid) != 0) {
    return errno;
  }
  return 0;
}

}  // namespace trainyard::os
