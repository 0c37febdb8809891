#include "run/local/replica_init.h"

#include <array>
#include <cerrno>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/local/supervisor_command.h"

namespace trainyard::run::local {
namespace {

// The report: 1 and the exit status, or 0 and the signal.
struct Report {
  int exited = 0;
  int value = 0;
};

void Ignore(int /*signal*/) {}

[[noreturn]] void Fail(int error_fd, int error) {
  const InitFailure failure{.stage = kSandboxStage, .error = error};
  [[maybe_unused]] ssize_t wrote = write(error_fd, &failure, sizeof(failure));
  _exit(127);
}

}  // namespace

void RunReplicaInit(const InitSetup& setup) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  sigset_t waited;
  sigemptyset(&waited);
  sigaddset(&waited, SIGCHLD);
  for (int signal : kStopSignals) {
    sigaddset(&waited, signal);
  }
  sigprocmask(SIG_BLOCK, &waited, nullptr);
  struct sigaction handled {};
  handled.sa_handler = Ignore;  // a handler, so that the kernel delivers them to an init at all
  for (int signal : kStopSignals) {
    sigaction(signal, &handled, nullptr);
  }
  sigaction(SIGCHLD, &handled, nullptr);

  PreparedView none(FileView{}, std::nullopt);
  if (int error = EnterView(setup.view != nullptr ? *setup.view : none); error != 0) {
    Fail(setup.error_fd, error);
  }
  if (int error = MountProc(); error != 0) {
    Fail(setup.error_fd, error);
  }
  if (chdir(setup.working_dir.c_str()) != 0) {
    Fail(setup.error_fd, errno);
  }
  const pid_t trainer = fork();
  if (trainer < 0) {
    Fail(setup.error_fd, errno);
  }
  if (trainer == 0) {
    setpgid(0, 0);
    setup.start_trainer();
    _exit(127);
  }
  setpgid(trainer, trainer);  // either side may run first
  close(setup.error_fd);      // the trainer's exec closes its own: the supervisor sees the end
  for (;;) {
    siginfo_t info{};
    if (sigwaitinfo(&waited, &info) < 0) {
      continue;
    }
    if (info.si_signo != SIGCHLD) {
      if (kill(-trainer, info.si_signo) != 0) {
        kill(trainer, info.si_signo);
      }
      continue;
    }
    int status = 0;
    pid_t ended = 0;
    while ((ended = waitpid(-1, &status, WNOHANG)) > 0) {
      if (ended != trainer) {
        continue;
      }
      const Report report = WIFEXITED(status) ? Report{.exited = 1, .value = WEXITSTATUS(status)}
                                              : Report{.exited = 0, .value = WTERMSIG(status)};
      [[maybe_unused]] ssize_t wrote = write(setup.status_fd, &report, sizeof(report));
      _exit(0);  // the kernel ends the rest of the namespace
    }
  }
}

std::optional<ExitStatus> ReadInitReport(int fd) {
  Report report;
  ssize_t got = 0;
  do {
    got = read(fd, &report, sizeof(report));
  } while (got < 0 && errno == EINTR);
  if (got != static_cast<ssize_t>(sizeof(report))) {
    return std::nullopt;
  }
  if (report.exited != 0) {
    return ExitStatus{.code = report.value};
  }
  return ExitStatus{.signaled = true, .signal = report.value};
}

}  // namespace trainyard::run::local
