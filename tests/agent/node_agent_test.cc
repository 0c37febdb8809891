// The node agent, `trainyard batch-task` (agent/node_agent.h), with real processes: RunBatchTask
// in a forked child (it blocks signals and starts threads) with a fake Slurm step environment, its
// replica under the real trainyard-replica supervisor; and once through the real `trainyard`
// binary.
// The job is a container job (master, 2 workers, 1 parameter server) whose containerCommand is
// a shell script, run on the host (`--containers host`: this test is about the task, not
// images); node_addresses name every node, so no scontrol is asked.
#include "agent/node_agent.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/batch_launch.h"
#include "base/clock.h"
#include "control/job_layout.h"
#include "fakes/temp_dir.h"
#include "logs/log_record.h"
#include "run/launcher.h"
#include "support/build_paths.h"
#include "support/sample_jobs.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): for posix_spawn

namespace trainyard::agent {
namespace {

using agent::BatchLaunch;
using agent::TaskStarted;
using control::JobLayout;

using testing::TempDir;
using Env = std::map<std::string, std::string>;

const char* const kSupervisor = ::trainyard::testing::SupervisorPath().c_str();
const char* const kTrainyard = ::trainyard::testing::TrainyardPath().c_str();
constexpr int kDeadlineMs = 30'000;
constexpr int kFirstPort = 24000;

// Task i of the step: master (n1), workers (n2, n3), parameter server (n4).
Env SlurmEnv(int procid) {
  return {{"SLURM_PROCID", std::to_string(procid)},     {"SLURM_HET_SIZE", "3"},
          {"SLURM_JOB_NODELIST_HET_GROUP_0", "n1"},     {"SLURM_NTASKS_HET_GROUP_0", "1"},
          {"SLURM_JOB_NODELIST_HET_GROUP_1", "n[2-3]"}, {"SLURM_NTASKS_HET_GROUP_1", "2"},
          {"SLURM_JOB_NODELIST_HET_GROUP_2", "n4"},     {"SLURM_NTASKS_HET_GROUP_2", "1"}};
}

// Waits for `pid` (a child of this process) within the deadline; its exit status as a shell
// reports it (128 + signal when killed), or nullopt (then it is killed).
std::optional<int> WaitChild(pid_t pid) {
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    ADD_FAILURE() << "pidfd_open failed";
    return std::nullopt;
  }
  pollfd fd{.fd = pidfd, .events = POLLIN};
  const bool ended = poll(&fd, 1, kDeadlineMs) == 1;
  close(pidfd);
  if (!ended) {
    kill(pid, SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!ended) {
    return std::nullopt;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A named pipe the replicas write their pid to (`echo $$ > fifo`), read with a deadline. Held
// open for reading and writing, so a replica's open never blocks and a read never sees EOF.
class PidPipe {
 public:
  explicit PidPipe(std::string path) : path_(std::move(path)) {
    EXPECT_EQ(mkfifo(path_.c_str(), 0600), 0);
    fd_ = open(path_.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    EXPECT_GE(fd_, 0);
  }
  PidPipe(const PidPipe&) = delete;
  PidPipe& operator=(const PidPipe&) = delete;
  ~PidPipe() { close(fd_); }

  const std::string& path() const { return path_; }

  std::optional<pid_t> Next() {
    while (buffer_.find('\n') == std::string::npos) {
      pollfd fd{.fd = fd_, .events = POLLIN};
      if (poll(&fd, 1, kDeadlineMs) != 1) {
        return std::nullopt;
      }
      std::array<char, 256> chunk{};
      const ssize_t got = read(fd_, chunk.data(), chunk.size());
      if (got > 0) {
        buffer_.append(chunk.data(), static_cast<std::size_t>(got));
      }
    }
    const std::size_t newline = buffer_.find('\n');
    const std::string line = buffer_.substr(0, newline);
    buffer_.erase(0, newline + 1);
    return static_cast<pid_t>(std::stoi(line));
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::string buffer_;
};

class BatchTaskTest : public ::testing::Test {
 protected:
  // Writes the launch file of a job whose every replica runs `sh -c script`.
  std::string WriteLaunch(const std::string& script, control::RestartPolicy restart = {}) {
    model::Job job = trainyard::testing::ValidRuntimeJob("bt");
    model::TrainingInput& input = *job.training_input;
    trainyard::testing::DropPythonPackage(input);
    input.job_dir.clear();
    input.scale_tier = model::ScaleTier::kCustom;
    input.master_type = "n1-standard-4";
    input.worker_type = "n1-standard-4";
    input.worker_count = 2;
    input.parameter_server_type = "n1-standard-4";
    input.parameter_server_count = 1;
    input.master_config.emplace();
    input.master_config->image_uri = "gcr.io/p/trainer:1";
    input.master_config->container_command = {"/bin/sh", "-c", script};
    const BatchLaunch launch{.job = std::move(job),
                             .project = "p",
                             .data_dir = dir_.path().string(),
                             .context = {.job_id = "bt"},
                             .first_port = kFirstPort,
                             .node_addresses = {{"n1", "127.0.0.1"},
                                                {"n2", "127.0.0.1"},
                                                {"n3", "127.0.0.1"},
                                                {"n4", "127.0.0.1"}},
                             .supervisor = kSupervisor,
                             .restart = restart};
    std::string path = layout_.launch_file();
    EXPECT_TRUE(agent::WriteBatchLaunch(path, launch).ok());
    return path;
  }

  // Forks a child that runs the task with `env` as its Slurm environment.
  static pid_t StartTask(const std::string& launch_path, Env env) {
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0) {
      const SystemClock clock;
      const int rc = RunBatchTask(
          launch_path,
          [&env](std::string_view name) -> std::optional<std::string> {
            const auto found = env.find(std::string(name));
            return found == env.end() ? std::nullopt : std::optional(found->second);
          },
          catalog::Catalog::Builtin(), clock, {}, /*containers_on_host=*/true);
      _exit(rc);
    }
    return pid;
  }

  std::vector<std::string> RecordsOf(const std::string& path) const {
    std::ifstream in(path);
    std::vector<std::string> texts;
    for (std::string line; std::getline(in, line);) {
      if (const std::optional<logs::LogRecord> record = logs::ParseRecord(line)) {
        texts.emplace_back(record->text);
      }
    }
    return texts;
  }
  std::string ServiceLog() const {
    std::string all;
    for (const std::string& text : RecordsOf(layout_.service_log())) {
      all += text + "\n";
    }
    return all;
  }
  std::optional<TaskStarted> StartedOf(std::string_view task) const {
    std::ifstream in(layout_.started_path(task));
    std::ostringstream text;
    text << in.rdbuf();
    Result<TaskStarted> started = agent::DecodeTaskStarted(text.str());
    return started.ok() ? std::optional(*started) : std::nullopt;
  }
  std::optional<ExitStatus> ExitOf(std::string_view task) const {
    return run::ReadExitStatus(layout_.exit_path(task));
  }

  TempDir dir_;
  JobLayout layout_{dir_.path().string(), "p", "bt"};
};

struct PlaceCase {
  std::string name;
  int procid;
  std::string task;  // its task name
  std::string type;  // TF_CONFIG task.type
  int index;
  std::string node;
  std::string rank;  // RANK (PyTorch), "" for parameter servers
};

class BatchTaskPlaceTest : public BatchTaskTest, public ::testing::WithParamInterface<PlaceCase> {};

TEST_P(BatchTaskPlaceTest, ReplicaGetsItsPlaceInTheClusterAndItsFiles) {
  const PlaceCase& tc = GetParam();
  const std::string launch = WriteLaunch(R"(echo "$TF_CONFIG"; echo "RANK=$RANK")");
  const pid_t task = StartTask(launch, SlurmEnv(tc.procid));
  EXPECT_EQ(WaitChild(task), 0);

  const std::vector<std::string> records = RecordsOf(layout_.log_path(tc.task));
  ASSERT_EQ(records.size(), 2U) << "the replica's output, as records in its task's log";
  const nlohmann::json tf_config = nlohmann::json::parse(records[0]);
  EXPECT_EQ(tf_config["task"]["type"], tc.type);
  EXPECT_EQ(tf_config["task"]["index"], tc.index);
  const auto address = [](int task_index) {
    return "127.0.0.1:" + std::to_string(kFirstPort + task_index);
  };
  EXPECT_EQ(tf_config["cluster"]["master"], nlohmann::json::array({address(0)}));
  EXPECT_EQ(tf_config["cluster"]["worker"], nlohmann::json::array({address(1), address(2)}));
  EXPECT_EQ(tf_config["cluster"]["ps"], nlohmann::json::array({address(3)}));
  EXPECT_EQ(records[1], "RANK=" + tc.rank);

  const std::optional<ExitStatus> exit = ExitOf(tc.task);
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(exit->Succeeded());
  EXPECT_FALSE(std::filesystem::exists(layout_.exit_path(tc.task) + ".attempt"));
  const std::optional<TaskStarted> started = StartedOf(tc.task);
  ASSERT_TRUE(started.has_value());
  EXPECT_EQ(started->node, tc.node);
  EXPECT_EQ(started->host, "127.0.0.1");
  EXPECT_EQ(started->pid, task);
  EXPECT_EQ(started->restarts, 0);
  EXPECT_TRUE(std::filesystem::is_directory(layout_.working_dir(tc.task)));
}

INSTANTIATE_TEST_SUITE_P(
    Tasks, BatchTaskPlaceTest,
    ::testing::Values(PlaceCase{"Master", 0, "master-replica-0", "master", 0, "n1", "0"},
                      PlaceCase{"FirstWorker", 1, "worker-replica-0", "worker", 0, "n2", "1"},
                      PlaceCase{"SecondWorker", 2, "worker-replica-1", "worker", 1, "n3", "2"},
                      PlaceCase{"ParameterServer", 3, "ps-replica-0", "ps", 0, "n4", ""}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(BatchTaskTest, ExitCodeIsPropagatedAndRecorded) {
  const std::string launch = WriteLaunch("echo failing >&2; exit 3");
  EXPECT_EQ(WaitChild(StartTask(launch, SlurmEnv(1))), 3);
  const std::optional<ExitStatus> exit = ExitOf("worker-replica-0");
  ASSERT_TRUE(exit.has_value());
  EXPECT_FALSE(exit->signaled);
  EXPECT_EQ(exit->code, 3);
  EXPECT_EQ(RecordsOf(layout_.log_path("worker-replica-0")), std::vector<std::string>{"failing"});
  EXPECT_EQ(ServiceLog().find("restarting"), std::string::npos) << "an exit is not a crash";
}

TEST_F(BatchTaskTest, ReplicaKilledBySigkillIsRestartedUpToMaxRestarts) {
  PidPipe pids(dir_.File("pids"));
  const std::string launch = WriteLaunch("echo $$ > " + pids.path() + "; exec sleep 60",
                                         {.max_restarts = 2,
                                          .initial_backoff = std::chrono::milliseconds(1),
                                          .max_backoff = std::chrono::milliseconds(4)});
  const pid_t task = StartTask(launch, SlurmEnv(0));
  for (int start = 0; start < 3; ++start) {
    const std::optional<pid_t> replica = pids.Next();
    ASSERT_TRUE(replica.has_value()) << "start " << start;
    ASSERT_EQ(kill(*replica, SIGKILL), 0);
  }
  EXPECT_EQ(WaitChild(task), 128 + SIGKILL);
  const std::optional<ExitStatus> exit = ExitOf("master-replica-0");
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(exit->signaled);
  EXPECT_EQ(exit->signal, SIGKILL);
  ASSERT_TRUE(StartedOf("master-replica-0").has_value());
  EXPECT_EQ(StartedOf("master-replica-0")->restarts, 2);
  EXPECT_EQ(ServiceLog(),
            "The replica master-replica-0 was terminated by signal 9 (SIGKILL); restarting it in "
            "0.001 s (restart 1 of 2).\n"
            "The replica master-replica-0 was terminated by signal 9 (SIGKILL); restarting it in "
            "0.002 s (restart 2 of 2).\n");
}

TEST_F(BatchTaskTest, SigtermToTheTaskStopsTheReplicaWithoutARestart) {
  PidPipe pids(dir_.File("pids"));
  const std::string launch = WriteLaunch("echo $$ > " + pids.path() + "; exec sleep 60");
  const pid_t task = StartTask(launch, SlurmEnv(2));
  ASSERT_TRUE(pids.Next().has_value());
  ASSERT_EQ(kill(task, SIGTERM), 0);
  EXPECT_EQ(WaitChild(task), 128 + SIGTERM);
  const std::optional<ExitStatus> exit = ExitOf("worker-replica-1");
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(exit->signaled);
  EXPECT_EQ(exit->signal, SIGTERM);
  EXPECT_EQ(StartedOf("worker-replica-1")->restarts, 0);
  EXPECT_EQ(ServiceLog(), "") << "no restart";
}

struct BadEnvCase {
  std::string name;
  Env env;
  std::string task;  // the name its exit file is written under
  std::string says;
};

class BatchTaskBadEnvTest : public BatchTaskTest,
                            public ::testing::WithParamInterface<BadEnvCase> {};

Env Without(Env env, const std::string& name) {
  env.erase(name);
  return env;
}
Env With(Env env, const std::string& name, std::string value) {
  env[name] = std::move(value);
  return env;
}

TEST_P(BatchTaskBadEnvTest, TaskThatCannotStartItsReplicaExits127SayingWhy) {
  const BadEnvCase& tc = GetParam();
  const std::string launch = WriteLaunch("echo should not run");
  EXPECT_EQ(WaitChild(StartTask(launch, tc.env)), 127);
  const std::string service = ServiceLog();
  EXPECT_NE(service.find("The replica " + tc.task + " could not be started: "), std::string::npos)
      << service;
  EXPECT_NE(service.find(tc.says), std::string::npos) << service;
  const std::optional<ExitStatus> exit = ExitOf(tc.task);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->code, 127);
  EXPECT_FALSE(std::filesystem::exists(layout_.log_path("master-replica-0")));
}

INSTANTIATE_TEST_SUITE_P(
    Envs, BatchTaskBadEnvTest,
    ::testing::Values(BadEnvCase{.name = "NoProcid",
                                 .env = Without(SlurmEnv(0), "SLURM_PROCID"),
                                 .task = "task",
                                 .says = "SLURM_PROCID is not set"},
                      BadEnvCase{.name = "ProcidBeyondTheTasks",
                                 .env = SlurmEnv(4),
                                 .task = "task",
                                 .says = "SLURM_PROCID"},
                      BadEnvCase{.name = "ComponentsNotTheJobsRoles",
                                 .env = With(SlurmEnv(1), "SLURM_HET_SIZE", "2"),
                                 .task = "task-1",
                                 .says = "do not match the job's replicas"},
                      BadEnvCase{.name = "BadDeviceList",
                                 .env = With(SlurmEnv(0), "CUDA_VISIBLE_DEVICES", "0,x"),
                                 .task = "master-replica-0",
                                 .says = "is not a device index"}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(BatchTaskTest, MissingLaunchFileExits127) {
  EXPECT_EQ(WaitChild(StartTask(dir_.File("none.json"), SlurmEnv(0))), 127);
}

// The real binary: `trainyard batch-task --launch FILE` reads the Slurm variables of its
// environment.
TEST_F(BatchTaskTest, TrainyardBinaryRunsTheTaskFromItsEnvironment) {
  const std::string launch = WriteLaunch("echo RANK=$RANK; exit 5");
  std::vector<std::string> env_strings;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (!std::string_view(*entry).starts_with("SLURM_")) {
      env_strings.emplace_back(*entry);
    }
  }
  for (const auto& [name, value] : SlurmEnv(2)) {
    env_strings.push_back(name);
    env_strings.back().append("=").append(value);
  }
  std::vector<char*> envp;
  envp.reserve(env_strings.size() + 1);
  for (std::string& entry : env_strings) {
    envp.push_back(entry.data());
  }
  envp.push_back(nullptr);
  std::vector<std::string> args = {kTrainyard, "batch-task",   "--launch",
                                   launch,     "--containers", "host"};
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, kTrainyard, nullptr, nullptr, argv.data(), envp.data()), 0);
  EXPECT_EQ(WaitChild(pid), 5);
  EXPECT_EQ(RecordsOf(layout_.log_path("worker-replica-1")), std::vector<std::string>{"RANK=2"});
  ASSERT_TRUE(ExitOf("worker-replica-1").has_value());
  EXPECT_EQ(ExitOf("worker-replica-1")->code, 5);
}

}  // namespace
}  // namespace trainyard::agent
