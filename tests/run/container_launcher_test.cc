// Container replicas for real: ProcessLauncher with the podman runtime as detected on this host,
// on the offline base image (scripts/base_image.sh). A container's output becomes the replica's
// records, its exit status the replica's (128 + N read as signal N), a stop signal reaches the
// trainer through podman and catatonit, SIGKILL ends a trainer that ignores SIGTERM, the
// environment and mounts are the spec's, and no container is left behind. Skipped without podman
// or the image, unless TRAINYARD_REQUIRE_CONTAINERS=1 (CI).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include "fakes/temp_dir.h"
#include "run/command.h"
#include "run/container/podman_runtime.h"
#include "run/exit_recorder.h"
#include "run/local/process_launcher.h"
#include "run/local/spawn.h"
#include "run/log_file.h"
#include "run/test_process.h"
#include "support/wait.h"

namespace trainyard::run::local {
namespace {

using ::trainyard::run::testing::kSupervisor;

using ::testing::HasSubstr;
using ::trainyard::run::testing::CapturedText;
using ::trainyard::run::testing::ExitRecorder;
using ::trainyard::testing::TempDir;

constexpr char kImage[] = "localhost/trainyard/debian-python:bookworm";

// The containers named `name` podman still has, running or not ("" when none).
std::string ContainersNamed(const std::string& name) {
  Result<CommandResult> listed = RunCommand(
      {"podman", "ps", "-a", "--filter", "name=^" + name + "$", "--format", "{{.Names}}"}, "",
      std::chrono::seconds(30));
  return listed.ok() ? listed->out : "<podman ps failed>";
}

// Whether `check` holds within 30 s (podman's own commands take a second or two here).
bool Eventually(const std::function<bool()>& check) {
  return ::trainyard::testing::WaitUntil(check, std::chrono::seconds(30));
}

// podman's state of the container `name` ("created", "running", "exited", ...; "" when there
// is none).
std::string ContainerState(const std::string& name) {
  Result<CommandResult> inspected =
      RunCommand({"podman", "container", "inspect", "--format", "{{.State.Status}}", name}, "",
                 std::chrono::seconds(30));
  if (!inspected.ok() || !inspected->status.Succeeded()) {
    return "";
  }
  std::string state = inspected->out;
  while (!state.empty() && state.back() == '\n') {
    state.pop_back();
  }
  return state;
}

class ContainerLauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<CommandResult> exists =
        RunCommand({"podman", "image", "exists", kImage}, "", std::chrono::seconds(30));
    if (!exists.ok() || !exists->status.Succeeded()) {
      const char* required = std::getenv("TRAINYARD_REQUIRE_CONTAINERS");  // NOLINT
      if (required != nullptr && std::string(required) == "1") {
        FAIL() << "podman or " << kImage << " is missing: run scripts/base_image.sh";
      }
      GTEST_SKIP() << "podman or " << kImage << " is missing";
    }
    runtime_ = std::make_unique<container::PodmanRuntime>(container::DetectPodmanHost({}),
                                                          std::chrono::seconds(60));
    launcher_ = std::make_unique<ProcessLauncher>(exits_.Callback(), kSupervisor,
                                                  CurrentEnvironment(), runtime_.get());
  }

  // A spec running `code` with python3 in the container `name`.
  ProcessSpec Python(const std::string& name, const std::string& code) {
    return ProcessSpec{.argv = {},
                       .env = {{"GREETING", "hello from the host"}},
                       .working_dir = dir_.File("work"),
                       .log_path = dir_.File("logs/" + name + ".log"),
                       .exit_path = dir_.File("run/" + name + ".exit"),
                       .container = ContainerSpec{.image = kImage,
                                                  .entrypoint = {"python3", "-c", code},
                                                  .args = {},
                                                  .name = name,
                                                  .labels = {{"trainyard.test", "launcher"}},
                                                  .mounts = {},
                                                  .device_indices = {},
                                                  .working_dir = "",
                                                  .hosts = {}}};
  }

  TempDir dir_;
  ExitRecorder exits_;
  std::unique_ptr<container::PodmanRuntime> runtime_;
  std::unique_ptr<ProcessLauncher> launcher_;
};

TEST_F(ContainerLauncherTest, RecordsTheOutputAndExitStatusWithTheSpecsEnvironmentAndMounts) {
  std::filesystem::create_directories(dir_.File("shared"));
  std::ofstream(dir_.File("shared/in.txt")) << "from the host\n";
  ProcessSpec spec = Python(
      "ty-test-output",
      "import os, sys; print(os.environ['GREETING']); print(open('/data/in.txt').read().strip()); "
      "open('/data/out.txt', 'w').write('from the container'); print('oops', file=sys.stderr); "
      "print('HOME' in os.environ and 'PATH_OF_SERVER' not in os.environ); sys.exit(3)");
  spec.container->mounts = {Mount{.source = dir_.File("shared"), .target = "/data"}};
  Result<int> pid = launcher_->Start(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  const std::optional<ExitStatus> status = exits_.WaitFor(*pid);
  ASSERT_TRUE(status.has_value());
  EXPECT_FALSE(status->signaled);
  EXPECT_EQ(status->code, 3) << CapturedText(spec.log_path);
  EXPECT_EQ(CapturedText(spec.log_path, 'O'), "hello from the host\nfrom the host\nTrue\n");
  EXPECT_EQ(CapturedText(spec.log_path, 'E'), "oops\n");
  std::ifstream written(dir_.File("shared/out.txt"));
  std::string text;
  std::getline(written, text);
  EXPECT_EQ(text, "from the container");
  EXPECT_TRUE(Eventually([] { return ContainersNamed("ty-test-output").empty(); }));
}

// A Kubeflow job's peers: --add-host lines resolve inside the container with host networking,
// and --workdir is the trainer's directory.
TEST_F(ContainerLauncherTest, PeersNamesResolveAndTheWorkingDirIsTheSpecs) {
  ProcessSpec spec = Python("ty-test-hosts",
                            "import os, socket; print(os.getcwd()); "
                            "print(socket.gethostbyname('mnist-worker-0.team-a.svc')); "
                            "print(socket.gethostbyname('mnist-worker-0'))");
  spec.container->working_dir = "/usr/lib";
  spec.container->hosts = {{"mnist-worker-0.team-a.svc", "127.0.0.1"},
                           {"mnist-worker-0", "127.0.0.2"}};
  Result<int> pid = launcher_->Start(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  const std::optional<ExitStatus> status = exits_.WaitFor(*pid);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(status->Succeeded()) << CapturedText(spec.log_path);
  EXPECT_EQ(CapturedText(spec.log_path, 'O'), "/usr/lib\n127.0.0.1\n127.0.0.2\n");
}

// Unlike Kubernetes, podman 4.3 does not create a working directory the image lacks: the
// replica fails with podman's message (exit 126), which its log shows.
TEST_F(ContainerLauncherTest, AWorkingDirTheImageLacksFailsTheReplicaSayingSo) {
  ProcessSpec spec = Python("ty-test-workdir", "print(1)");
  spec.container->working_dir = "/no/such/dir";
  Result<int> pid = launcher_->Start(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  const std::optional<ExitStatus> status = exits_.WaitFor(*pid);
  ASSERT_TRUE(status.has_value());
  EXPECT_FALSE(status->Succeeded());
  EXPECT_THAT(CapturedText(spec.log_path, 'E'), HasSubstr("/no/such/dir"));
}

TEST_F(ContainerLauncherTest, AStopSignalReachesTheTrainerThroughTheRuntime) {
  // No handler: as a process, the trainer dies of SIGTERM (catatonit, not it, is PID 1).
  ProcessSpec spec = Python("ty-test-term", "import time; print('up', flush=True); time.sleep(60)");
  Result<int> pid = launcher_->Start(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  ASSERT_TRUE(Eventually([&] { return CapturedText(spec.log_path) == "up\n"; }));
  launcher_->SignalGroup(*pid, SIGTERM);
  const std::optional<ExitStatus> status = exits_.WaitFor(*pid);
  ASSERT_TRUE(status.has_value());
  // Once seen exiting instead, under the full suite: its code and log say how.
  EXPECT_TRUE(status->signaled) << "exited " << status->code << ": " << CapturedText(spec.log_path);
  EXPECT_EQ(status->signal, SIGTERM);
  EXPECT_TRUE(Eventually([] { return ContainersNamed("ty-test-term").empty(); }));
}

TEST_F(ContainerLauncherTest, SigkillEndsATrainerThatIgnoresSigtermAndLeavesNoContainer) {
  // The trainer says when SIGTERM reaches it, and carries on.
  ProcessSpec spec = Python("ty-test-kill",
                            "import signal, time\n"
                            "signal.signal(signal.SIGTERM, lambda *_: print('term', flush=True))\n"
                            "print('up', flush=True)\n"
                            "while True: time.sleep(60)");
  Result<int> pid = launcher_->Start(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  ASSERT_TRUE(Eventually([&] { return CapturedText(spec.log_path) == "up\n"; }));
  launcher_->SignalGroup(*pid, SIGTERM);
  ASSERT_TRUE(Eventually([&] { return CapturedText(spec.log_path) == "up\nterm\n"; }));
  EXPECT_EQ(ContainersNamed("ty-test-kill"), "ty-test-kill\n");  // still running
  EXPECT_FALSE(exits_.exits().contains(*pid));
  launcher_->SignalGroup(*pid, SIGKILL);
  ASSERT_TRUE(exits_.WaitFor(*pid).has_value());
  EXPECT_TRUE(Eventually([] { return ContainersNamed("ty-test-kill").empty(); }));
}

// A stop at each stage of a container's start (the client dies before it proxies signals,
// leaving the container "created" with its runtime waiting) leaves nothing either: at once, once
// podman lists the container, and once the trainer runs.
TEST_F(ContainerLauncherTest, AStopWhileTheContainerStartsLeavesNoContainer) {
  const std::vector<std::pair<std::string, std::function<bool(const std::string&)>>> stages = {
      {"at-once", [](const std::string&) { return true; }},
      {"listed", [](const std::string& name) { return !ContainerState(name).empty(); }},
      {"running", [](const std::string& name) { return ContainerState(name) == "running"; }}};
  for (const auto& [stage, reached] : stages) {
    const std::string name = "ty-test-early-" + stage;
    ProcessSpec spec = Python(name, "import time; time.sleep(60)");
    Result<int> pid = launcher_->Start(spec);
    ASSERT_TRUE(pid.ok()) << pid.status().ToString();
    ASSERT_TRUE(Eventually([&, &reached = reached] { return reached(name); })) << name;
    launcher_->SignalGroup(*pid, SIGTERM);
    ASSERT_TRUE(exits_.WaitFor(*pid).has_value()) << name;
    EXPECT_EQ(ContainersNamed(name), "") << name;
  }
}

TEST_F(ContainerLauncherTest, AMissingImageIsThePodmanErrorInTheLog) {
  ProcessSpec spec = Python("ty-test-missing", "print(1)");
  spec.container->image = "localhost/trainyard-test/does-not-exist:1";
  Result<int> pid = launcher_->Start(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  const std::optional<ExitStatus> status = exits_.WaitFor(*pid);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 125);  // podman's own error
  EXPECT_THAT(CapturedText(spec.log_path, 'E'), HasSubstr("does-not-exist"));
}

}  // namespace
}  // namespace trainyard::run::local
