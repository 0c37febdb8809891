// os/process.h: this process, signals in this thread, and real children (sleep, sh).
#include "os/process.h"

#include <array>
#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "support/wait.h"

namespace trainyard::os {
namespace {

using namespace std::chrono_literals;
using ::trainyard::testing::WaitUntil;

bool Blocked(int signal) {
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  return sigismember(&mask, signal) == 1;
}

bool Pending(int signal) {
  sigset_t pending;
  sigpending(&pending);
  return sigismember(&pending, signal) == 1;
}

TEST(Process, IdsAreThisProcesss) {
  EXPECT_EQ(CurrentPid(), static_cast<int>(::getpid()));
  EXPECT_EQ(EffectiveUid(), static_cast<unsigned>(::geteuid()));
}

TEST(Process, APipeIsNoTerminal) {
  std::array<int, 2> ends{};
  ASSERT_EQ(::pipe(ends.data()), 0);
  EXPECT_FALSE(IsTerminal(ends[0]));
  EXPECT_FALSE(IsTerminal(-1));
  ::close(ends[0]);
  ::close(ends[1]);
}

TEST(Signals, ABlockTakesWhatArrivesAndLeavesNothingBehind) {
  ASSERT_FALSE(Blocked(SIGUSR1));
  {
    const SignalBlock block({SIGUSR1, SIGUSR2});
    EXPECT_TRUE(Blocked(SIGUSR1));
    EXPECT_EQ(block.Wait(0ms), 0);  // none yet
    ASSERT_EQ(::raise(SIGUSR1), 0);
    EXPECT_EQ(block.Wait(1000ms), SIGUSR1);
    ASSERT_EQ(::raise(SIGUSR2), 0);  // arrives, is never waited for
  }
  EXPECT_FALSE(Blocked(SIGUSR1));
  EXPECT_FALSE(Blocked(SIGUSR2));  // and was taken on the way out (else it would kill the test)
}

TEST(Signals, ABlockLeavesASignalBlockedBeforeItBlockedAndPending) {
  BlockSignals(std::array{SIGUSR2});
  ASSERT_TRUE(Blocked(SIGUSR2));
  {
    const SignalBlock block({SIGUSR2});
    ASSERT_EQ(::raise(SIGUSR2), 0);
  }
  EXPECT_TRUE(Blocked(SIGUSR2));
  EXPECT_TRUE(Pending(SIGUSR2));
  EXPECT_EQ(TakeSignal(std::array{SIGUSR2}, 0ms), SIGUSR2);
  EXPECT_FALSE(Pending(SIGUSR2));
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

// `argv` with stdin and stdout on /dev/null, in a process group of its own when `own_group`.
Child Start(std::vector<std::string> argv, bool own_group = true) {
  Result<Child> child = Spawn({.argv = std::move(argv),
                               .env = {{"PATH", "/usr/bin:/bin"}},
                               .in = Stdio::Null(),
                               .out = Stdio::Null(),
                               .new_process_group = own_group});
  EXPECT_TRUE(child.ok()) << child.status().message();
  if (!child.ok()) {
    return Child();
  }
  return std::move(*child);
}

TEST(Children, RunningThenSignalledThenReaped) {
  const Child child = Start({"sleep", "60"});
  ASSERT_GT(child.pid, 0);
  EXPECT_FALSE(HasEnded(child));
  Result<std::optional<ExitStatus>> running = TryWait(child);
  ASSERT_TRUE(running.ok());
  EXPECT_FALSE(running->has_value());
  ASSERT_TRUE(Signal(child, SIGTERM).ok());
  EXPECT_TRUE(WaitUntil([&] { return HasEnded(child); }, 30s));
  EXPECT_TRUE(HasEnded(child));  // still not reaped: it stays ended
  Result<std::optional<ExitStatus>> ended = TryWait(child);
  ASSERT_TRUE(ended.ok());
  ASSERT_TRUE(ended->has_value());
  EXPECT_TRUE((*ended)->signaled);
  EXPECT_EQ((*ended)->signal, SIGTERM);
  int error = 0;
  Result<std::optional<ExitStatus>> again = TryWait(child, &error);
  ASSERT_FALSE(again.ok());  // reaped: no child of ours any more
  EXPECT_EQ(error, ECHILD);
  EXPECT_EQ(again.status().message(),
            "cannot wait for process " + std::to_string(child.pid) + ": No child processes");
  EXPECT_TRUE(HasEnded(child));
}

TEST(Children, SignalGroupSignalsTheGroupTheChildLeads) {
  const Child leader = Start({"sleep", "60"});
  const Child member = Start({"sleep", "60"}, /*own_group=*/false);  // in this test's group
  ASSERT_GT(leader.pid, 0);
  ASSERT_GT(member.pid, 0);
  int error = 0;
  EXPECT_FALSE(SignalGroup(member, SIGKILL, &error).ok());  // it leads no group
  EXPECT_EQ(error, ESRCH);
  ASSERT_TRUE(SignalGroup(leader, SIGKILL).ok());
  EXPECT_EQ(Wait(leader.pid).signal, SIGKILL);
  EXPECT_FALSE(SignalGroup(leader, SIGKILL, &error).ok());  // the group is gone with it
  EXPECT_EQ(error, ESRCH);
  ASSERT_TRUE(Signal(member, SIGKILL).ok());
  EXPECT_EQ(Wait(member.pid).signal, SIGKILL);
}

TEST(Children, SignalNamesTheErrno) {
  int error = 0;
  Child nobody;
  nobody.pid = 999999999;  // above any pid_max
  const Status status = Signal(nobody, SIGTERM, &error);
  EXPECT_EQ(status.code(), Code::kInternal);
  EXPECT_EQ(status.message(), "cannot signal process 999999999: No such process");
  EXPECT_EQ(error, ESRCH);
}

}  // namespace
}  // namespace trainyard::os
