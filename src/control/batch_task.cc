#include "control/batch_task.h"

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <optional>
#include <system_error>

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include "control/batch_launch.h"
#include "control/job_layout.h"
#include "control/replica_policy.h"
#include "control/run_record.h"
#include "control/service_log.h"
#include "logs/capture.h"
#include "plan/cluster_plan.h"
#include "plan/replicas.h"
#include "run/command.h"
#include "run/local/process_launcher.h"
#include "run/local/supervisor_command.h"

namespace trainyard::control {
namespace {

constexpr int kCannotStart = 127;

// The address `node` is reached at: the launch file's, else the NodeAddr `scontrol show node`
// gives, else the name itself.
std::string AddressOf(const std::string& node, const BatchLaunch& launch) {
  if (auto known = launch.node_addresses.find(node); known != launch.node_addresses.end()) {
    return known->second;
  }
  Result<run::CommandResult> shown =
      run::RunCommand({"scontrol", "-o", "show", "node", node}, "", std::chrono::seconds(30));
  if (shown.ok() && shown->status.Succeeded()) {
    const std::string_view text = shown->out;
    const std::size_t at = text.find("NodeAddr=");
    if (at != std::string_view::npos) {
      const std::string_view rest = text.substr(at + 9);
      std::string address(rest.substr(0, rest.find_first_of(" \n")));
      if (!address.empty()) {
        return address;
      }
    }
  }
  return node;
}

std::string ExitFileText(const run::ExitStatus& status) {
  return status.signaled ? fmt::format("signaled {}\n", status.signal)
                         : fmt::format("exited {}\n", status.code);
}

int ExitCodeOf(const run::ExitStatus& status) {
  return status.signaled ? 128 + status.signal : status.code;
}

// The replica shapes' role groups must be the step's components, in order and size.
Status CheckComponents(const std::vector<plan::ReplicaShape>& shapes,
                       const run::slurm::TaskLayout& tasks) {
  std::vector<int> groups;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (i == 0 || shapes[i].role != shapes[i - 1].role) {
      groups.push_back(0);
    }
    ++groups.back();
  }
  std::vector<int> components;
  for (const std::vector<std::string>& nodes : tasks.component_nodes) {
    components.push_back(static_cast<int>(nodes.size()));
  }
  if (groups != components) {
    return Status::FailedPrecondition(fmt::format(
        "The job step's components ({} with {} tasks) do not match the job's replicas ({} roles, "
        "{} replicas).",
        components.size(), tasks.TaskCount(), groups.size(), shapes.size()));
  }
  return Status();
}

// Waits for the replica's exit, passing stop signals (blocked in this thread) on to its group.
class ReplicaWatch {
 public:
  void OnExit(run::ExitStatus status) {
    {
      std::lock_guard lock(mu_);
      exit_ = status;
    }
    cv_.notify_all();
  }

  // Waits until the replica exits (returns its status) or, when `deadline` is given, until then
  // (returns nullopt). A stop signal that arrives meanwhile is sent to `pid`'s group (when > 0)
  // and remembered.
  std::optional<run::ExitStatus> Wait(run::Launcher& launcher, int pid,
                                      std::optional<MonoTime> deadline, const Clock& clock) {
    sigset_t stops;
    sigemptyset(&stops);
    for (int signal : run::local::kStopSignals) {
      sigaddset(&stops, signal);
    }
    while (true) {
      std::optional<run::ExitStatus> exit;
      {
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return exit_.has_value(); });
        exit = std::exchange(exit_, std::nullopt);
      }
      // Checked after the exit too: scancel signals every process of the step, and the replica
      // may have been reaped before this thread looked.
      const timespec poll{};
      const int signal = sigtimedwait(&stops, nullptr, &poll);
      if (signal > 0) {
        stopped_ = true;
        if (pid > 0 && !exit) {
          launcher.SignalGroup(pid, signal);
        }
      }
      if (exit) {
        // Killed by a stop signal: Slurm's (scancel, the time limit, preemption) reached the
        // replica before this process; not a crash to restart.
        stopped_ |= exit->signaled &&
                    std::find(run::local::kStopSignals.begin(), run::local::kStopSignals.end(),
                              exit->signal) != run::local::kStopSignals.end();
        return exit;
      }
      if (deadline && (clock.Monotonic() >= *deadline || stopped_)) {
        return std::nullopt;
      }
    }
  }

  bool stopped() const { return stopped_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<run::ExitStatus> exit_;
  bool stopped_ = false;
};

}  // namespace

int RunBatchTask(const std::string& launch_path, const run::slurm::GetEnv& getenv,
                 const catalog::Catalog& catalog, const Clock& clock) {
  // The stop signals are taken by ReplicaWatch (every thread started below inherits the mask).
  sigset_t stops;
  sigemptyset(&stops);
  for (int signal : run::local::kStopSignals) {
    sigaddset(&stops, signal);
  }
  pthread_sigmask(SIG_BLOCK, &stops, nullptr);

  Result<BatchLaunch> launch = ReadBatchLaunch(launch_path);
  if (!launch.ok()) {
    std::fprintf(stderr, "trainyard batch-task: %s\n", launch.status().message().c_str());
    return kCannotStart;
  }
  const JobLayout layout(launch->data_dir, launch->project, launch->job.job_id, launch->trial_id);
  Result<run::slurm::TaskLayout> tasks = run::slurm::TaskLayoutFromEnv(getenv);
  Result<std::vector<plan::ReplicaShape>> shapes =
      plan::ExpandReplicas(*launch->job.training_input, catalog);
  Status problem = !tasks.ok() ? tasks.status() : shapes.status();
  if (problem.ok()) {
    problem = CheckComponents(*shapes, *tasks);
  }
  // Until the task knows its replica, a failure is recorded in the service log and as a task
  // named after its rank.
  std::string task_name = tasks.ok() ? fmt::format("task-{}", tasks->procid) : "task";
  auto give_up = [&](const Status& status) {
    const std::string message =
        fmt::format("The replica {} could not be started: {}", task_name, status.message());
    std::fprintf(stderr, "trainyard batch-task: %s\n", message.c_str());
    AppendServiceMessage(layout.service_log(), clock, true, message);
    (void)WriteFileAtomically(layout.exit_path(task_name),
                              ExitFileText(run::ExitStatus{.code = kCannotStart}));
    return kCannotStart;
  };
  if (!problem.ok()) {
    return give_up(problem);
  }
  const int me = tasks->procid;
  const plan::ReplicaShape& shape = (*shapes)[static_cast<std::size_t>(me)];
  task_name = shape.task_name;

  std::vector<plan::ReplicaPlacement> placements;
  std::string my_node;
  for (const std::vector<std::string>& nodes : tasks->component_nodes) {
    for (const std::string& node : nodes) {
      const int task = static_cast<int>(placements.size());
      plan::ReplicaPlacement placement{.host = AddressOf(node, *launch),
                                       .port = launch->first_port + task};
      if (task == me) {
        my_node = node;
        Result<std::vector<int>> devices =
            run::slurm::ParseDeviceList(getenv("CUDA_VISIBLE_DEVICES").value_or(""));
        if (!devices.ok()) {
          return give_up(devices.status());
        }
        placement.device_indices = std::move(*devices);
      }
      placements.push_back(std::move(placement));
    }
  }
  plan::PlanContext context = launch->context;
  context.pytorch_master_port = launch->first_port + tasks->TaskCount();
  Result<std::vector<plan::ReplicaLaunch>> plan =
      plan::BuildClusterPlan(launch->job, *shapes, placements, context, catalog);
  if (!plan.ok()) {
    return give_up(plan.status());
  }
  plan::ReplicaLaunch& replica = (*plan)[static_cast<std::size_t>(me)];
  const std::string exit_path = layout.exit_path(task_name);
  run::ProcessSpec spec{.argv = std::move(replica.argv),
                        .env = std::move(replica.env),
                        .working_dir = layout.working_dir(task_name),
                        .log_path = layout.log_path(task_name),
                        .exit_path = exit_path + ".attempt"};
  std::error_code ignored;
  std::filesystem::remove(exit_path, ignored);  // a requeued job's earlier run

  ReplicaWatch watch;
  run::local::ProcessLauncher launcher(
      [&watch](int /*pid*/, run::ExitStatus status) { watch.OnExit(status); }, launch->supervisor);
  for (int restarts = 0;; ++restarts) {
    Result<int> pid = launcher.Start(spec);
    if (!pid.ok()) {
      return give_up(pid.status());
    }
    (void)WriteFileAtomically(
        layout.started_path(task_name),
        EncodeTaskStarted({.node = my_node,
                           .host = placements[static_cast<std::size_t>(me)].host,
                           .pid = static_cast<int>(getpid()),
                           .restarts = restarts}));
    const run::ExitStatus status = *watch.Wait(launcher, *pid, std::nullopt, clock);
    const ExitDecision decision =
        DecideOnExit(shape.role, shape.index, status, restarts, launch->restart);
    if (decision.action == ExitDecision::Action::kRestart && !watch.stopped()) {
      AppendServiceMessage(
          layout.service_log(), clock, false,
          RestartMessage(task_name, status, decision.backoff, restarts, launch->restart));
      // The backoff, unless a stop signal ends it (then the replica is not started again).
      if (!watch.Wait(launcher, 0, clock.Monotonic() + decision.backoff, clock) &&
          !watch.stopped()) {
        continue;
      }
    }
    std::filesystem::remove(spec.exit_path, ignored);
    (void)WriteFileAtomically(exit_path, ExitFileText(status));
    return ExitCodeOf(status);
  }
}

}  // namespace trainyard::control
